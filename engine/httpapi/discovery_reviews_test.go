package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// The reviews are in discovery as kube-apiserver lists them: create-only,
// no storageVersionHash, in every discovery document.
func TestDiscoveryReviews(t *testing.T) {
	s := newTestServer(t)
	groups := s.mustDo(http.StatusOK, http.MethodGet, "/apis", "", "")
	for _, g := range []string{"authentication.k8s.io", "authorization.k8s.io"} {
		jsoneq.Assert(t, groups.get(`groups.#(name=="`+g+`")`).Raw, `{"name":"`+g+`","versions":[{"groupVersion":"`+g+`/v1","version":"v1"}],
			"preferredVersion":{"groupVersion":"`+g+`/v1","version":"v1"}}`)
	}
	group := s.mustDo(http.StatusOK, http.MethodGet, "/apis/authorization.k8s.io", "", "")
	if group.get("kind").String() != "APIGroup" || group.get("preferredVersion.version").String() != "v1" {
		t.Fatalf("/apis/authorization.k8s.io: %s", group)
	}
	authz := s.mustDo(http.StatusOK, http.MethodGet, "/apis/authorization.k8s.io/v1", "", "")
	jsoneq.Assert(t, authz.body, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"authorization.k8s.io/v1","resources":[
		{"name":"localsubjectaccessreviews","singularName":"localsubjectaccessreview","namespaced":true,"kind":"LocalSubjectAccessReview","verbs":["create"]},
		{"name":"selfsubjectaccessreviews","singularName":"selfsubjectaccessreview","namespaced":false,"kind":"SelfSubjectAccessReview","verbs":["create"]},
		{"name":"selfsubjectrulesreviews","singularName":"selfsubjectrulesreview","namespaced":false,"kind":"SelfSubjectRulesReview","verbs":["create"]},
		{"name":"subjectaccessreviews","singularName":"subjectaccessreview","namespaced":false,"kind":"SubjectAccessReview","verbs":["create"]}]}`)
	authn := s.mustDo(http.StatusOK, http.MethodGet, "/apis/authentication.k8s.io/v1/", "", "")
	jsoneq.Assert(t, authn.get("resources").Raw, `[{"name":"selfsubjectreviews","singularName":"selfsubjectreview","namespaced":false,
		"kind":"SelfSubjectReview","verbs":["create"]}]`)

	aggregated := s.mustDo(http.StatusOK, http.MethodGet, "/apis", "", "", "Accept", acceptAggregated)
	jsoneq.Assert(t, aggregated.get(`items.#(metadata.name=="authorization.k8s.io").versions`).Raw, `[{"version":"v1","freshness":"Current","resources":[
		{"resource":"localsubjectaccessreviews","responseKind":{"group":"authorization.k8s.io","version":"v1","kind":"LocalSubjectAccessReview"},
		 "scope":"Namespaced","singularResource":"localsubjectaccessreview","verbs":["create"]},
		{"resource":"selfsubjectaccessreviews","responseKind":{"group":"authorization.k8s.io","version":"v1","kind":"SelfSubjectAccessReview"},
		 "scope":"Cluster","singularResource":"selfsubjectaccessreview","verbs":["create"]},
		{"resource":"selfsubjectrulesreviews","responseKind":{"group":"authorization.k8s.io","version":"v1","kind":"SelfSubjectRulesReview"},
		 "scope":"Cluster","singularResource":"selfsubjectrulesreview","verbs":["create"]},
		{"resource":"subjectaccessreviews","responseKind":{"group":"authorization.k8s.io","version":"v1","kind":"SubjectAccessReview"},
		 "scope":"Cluster","singularResource":"subjectaccessreview","verbs":["create"]}]}]`)
	if !aggregated.get(`items.#(metadata.name=="authentication.k8s.io").versions.0.resources.#(resource=="selfsubjectreviews")`).Exists() {
		t.Fatalf("aggregated: no selfsubjectreviews: %s", aggregated)
	}

	// Discovered, not stored: nothing to get or list.
	wantStatus(t, s.do(http.MethodGet, "/apis/authorization.k8s.io/v1/subjectaccessreviews", "", ""), http.StatusNotFound, "NotFound")
}

// A LocalSubjectAccessReview asks about its URL's namespace only, as
// kube-apiserver's.
func TestLocalSubjectAccessReview(t *testing.T) {
	s := newTestServer(t)
	const path = "/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews"
	review := func(namespace, attrs string) string {
		return `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","metadata":{"namespace":"` + namespace + `"},
			"spec":{"user":"bob",` + attrs + `}}`
	}
	r := s.create(path, review("", `"resourceAttributes":{"namespace":"team","verb":"get","resource":"configmaps"}`))
	if r.get("kind").String() != "LocalSubjectAccessReview" || r.get("metadata.namespace").String() != "team" ||
		!r.get("status.allowed").Bool() { // the test server allows everything
		t.Fatalf("review: %s", r)
	}
	for _, c := range []struct {
		name, body   string
		code         int
		reason, path string
	}{
		{"another namespace in the spec", review("team", `"resourceAttributes":{"namespace":"other","verb":"get","resource":"configmaps"}`),
			http.StatusUnprocessableEntity, "Invalid", "spec.resourceAttributes.namespace"},
		{"non-resource", review("team", `"nonResourceAttributes":{"path":"/metrics","verb":"get"}`),
			http.StatusUnprocessableEntity, "Invalid", "spec.nonResourceAttributes"},
		{"nobody", `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview",
			"spec":{"resourceAttributes":{"namespace":"team","verb":"get","resource":"configmaps"}}}`,
			http.StatusUnprocessableEntity, "Invalid", "spec.user"},
		{"another namespace in metadata", review("other", `"resourceAttributes":{"namespace":"other","verb":"get","resource":"configmaps"}`),
			http.StatusBadRequest, "BadRequest", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := s.do(http.MethodPost, path, "application/json", c.body)
			wantStatus(t, r, c.code, c.reason)
			if got := r.get("details.causes.0.field").String(); got != c.path {
				t.Errorf("field %q, want %q: %s", got, c.path, r)
			}
		})
	}
}

// TestReviewTable: a review has no metadata, so no Table of it: asked for
// one alone, kube-apiserver answers 406 with the media types a review has,
// before reading the body; with a fallback, the review answers as usual.
func TestReviewTable(t *testing.T) {
	s := newTestServer(t)
	const path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	const body = `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}`
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	tests := []struct {
		name, accept, body string
		code               int
	}{
		{"a Table", table, body, http.StatusNotAcceptable},
		{"a Table, the body not read", table, "{", http.StatusNotAcceptable},
		{"PartialObjectMetadata", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io", body, http.StatusNotAcceptable},
		{"a Table or JSON", table + ", application/json", body, http.StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(http.MethodPost, path, "application/json", tt.body, "Accept", tt.accept)
			if r.code != tt.code {
				t.Fatalf("%d, want %d: %s", r.code, tt.code, r.body)
			}
			if tt.code == http.StatusNotAcceptable {
				wantStatus(t, r, tt.code, "NotAcceptable")
				if msg := r.get("message").String(); msg != "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf" {
					t.Errorf("message %q", msg)
				}
			}
		})
	}
}
