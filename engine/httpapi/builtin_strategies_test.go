package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

const (
	configMaps   = "/api/v1/namespaces/default/configmaps"
	secrets      = "/api/v1/namespaces/default/secrets"
	rbacV1       = "/apis/rbac.authorization.k8s.io/v1"
	mergePatch   = "application/merge-patch+json"
	immutableMsg = "Forbidden: field is immutable when `immutable` is set"
)

// wantInvalid checks a 422 whose causes include one at field saying words.
func wantInvalid(t *testing.T, r response, field, words string) {
	t.Helper()
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid")
	for _, c := range r.get("details.causes").Array() {
		if c.Get("field").String() == field && strings.Contains(c.Get("message").String(), words) {
			if msg := r.get("message").String(); !strings.Contains(msg, field+": ") || !strings.Contains(msg, words) {
				t.Errorf("message %q does not say %q at %s", msg, words, field)
			}
			return
		}
	}
	t.Fatalf("no cause at %s saying %q: %s", field, words, r.body)
}

// A Secret's stringData is merged into data, base64, and never stored;
// type defaults to Opaque and cannot change; data must be base64.
func TestSecretStrategy(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	created := s.create(secrets, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},
		"data":{"a":"YQ==","b":"Yg=="},"stringData":{"b":"bee","c":"sea"}}`)
	got := s.mustDo(http.StatusOK, http.MethodGet, secrets+"/s", "", "")
	for _, r := range []response{created, got} {
		jsoneq.Assert(t, r.get("data").Raw, `{"a":"YQ==","b":"YmVl","c":"c2Vh"}`)
		if r.get("stringData").Exists() || r.get("type").String() != "Opaque" {
			t.Errorf("stringData kept or type not defaulted: %s", r.body)
		}
	}
	patched := s.mustDo(http.StatusOK, http.MethodPatch, secrets+"/s", mergePatch, `{"stringData":{"a":"ay"}}`)
	jsoneq.Assert(t, patched.get("data").Raw, `{"a":"YXk=","b":"YmVl","c":"c2Vh"}`)

	r := s.do(http.MethodPatch, secrets+"/s", mergePatch, `{"type":"kubernetes.io/tls"}`)
	wantInvalid(t, r, "type", `Invalid value: "kubernetes.io/tls": field is immutable`)

	r = s.do(http.MethodPost, secrets, "application/json", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"bad"},"data":{"a":"not base64!"}}`)
	wantStatus(t, r, http.StatusBadRequest, "BadRequest")
	if !strings.Contains(r.get("message").String(), "illegal base64 data") {
		t.Errorf("message: %s", r.get("message"))
	}
}

// An immutable ConfigMap or Secret keeps its data, and stays immutable;
// its metadata may still change.
func TestImmutableConfigMapAndSecret(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.create(configMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"b"},"immutable":true}`)
	wantInvalid(t, s.do(http.MethodPatch, configMaps+"/c", mergePatch, `{"data":{"a":"changed"}}`), "data", immutableMsg)
	wantInvalid(t, s.do(http.MethodPatch, configMaps+"/c", mergePatch, `{"binaryData":{"x":"eA=="}}`), "binaryData", immutableMsg)
	wantInvalid(t, s.do(http.MethodPatch, configMaps+"/c", mergePatch, `{"immutable":false}`), "immutable", immutableMsg)
	s.mustDo(http.StatusOK, http.MethodPatch, configMaps+"/c", mergePatch, `{"metadata":{"labels":{"x":"y"}}}`)

	s.create(secrets, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"a":"b"},"immutable":true}`)
	wantInvalid(t, s.do(http.MethodPatch, secrets+"/s", mergePatch, `{"stringData":{"a":"c"}}`), "data", immutableMsg)
	wantInvalid(t, s.do(http.MethodPatch, secrets+"/s", mergePatch, `{"immutable":null}`), "immutable", immutableMsg)

	// Not immutable: data changes, and immutable may be set.
	s.create(configMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m"},"data":{"a":"b"}}`)
	s.mustDo(http.StatusOK, http.MethodPatch, configMaps+"/m", mergePatch, `{"data":{"a":"c"},"immutable":true}`)
}

// A RoleBinding's or ClusterRoleBinding's roleRef cannot change.
func TestBindingRoleRefImmutable(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for _, path := range []string{rbacV1 + "/namespaces/default/rolebindings", rbacV1 + "/clusterrolebindings"} {
		kind := "RoleBinding"
		if strings.HasSuffix(path, "clusterrolebindings") {
			kind = "ClusterRoleBinding"
		}
		s.create(path, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"`+kind+`","metadata":{"name":"b"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
			"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"jane"}]}`)
		r := s.do(http.MethodPatch, path+"/b", mergePatch, `{"roleRef":{"name":"edit"}}`)
		wantInvalid(t, r, "roleRef", "cannot change roleRef")
		s.mustDo(http.StatusOK, http.MethodPatch, path+"/b", mergePatch, `{"subjects":[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"ops"}]}`)
	}
}

// A ServiceAccount, a Role and a ClusterRole with an aggregationRule are
// stored as written.
func TestServiceAccountAndRolesStored(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.create("/api/v1/namespaces/default/serviceaccounts", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"sa"},
		"automountServiceAccountToken":false,"imagePullSecrets":[{"name":"reg"}]}`)
	sa := s.mustDo(http.StatusOK, http.MethodGet, "/api/v1/namespaces/default/serviceaccounts/sa", "", "")
	jsoneq.Assert(t, sa.get("imagePullSecrets").Raw, `[{"name":"reg"}]`)
	s.create(rbacV1+"/clusterroles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"agg"},
		"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a":"b"}}]}}`)
	cr := s.mustDo(http.StatusOK, http.MethodGet, rbacV1+"/clusterroles/agg", "", "")
	jsoneq.Assert(t, cr.get("aggregationRule").Raw, `{"clusterRoleSelectors":[{"matchLabels":{"a":"b"}}]}`)
}

// A strategic merge patch merges lists by the merge key the schema
// declares: a ServiceAccount's secrets by name.
func TestStrategicMergePatchFromSchema(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	const sa = "/api/v1/namespaces/default/serviceaccounts"
	s.create(sa, `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"sa","labels":{"a":"b"}},"secrets":[{"name":"one"}]}`)
	r := s.mustDo(http.StatusOK, http.MethodPatch, sa+"/sa", "application/strategic-merge-patch+json",
		`{"metadata":{"labels":{"c":"d"}},"secrets":[{"name":"two"}]}`)
	jsoneq.Assert(t, r.get("secrets").Raw, `[{"name":"two"},{"name":"one"}]`)
	jsoneq.Assert(t, r.get("metadata.labels").Raw, `{"a":"b","c":"d"}`)
	r = s.mustDo(http.StatusOK, http.MethodPatch, sa+"/sa", "application/strategic-merge-patch+json",
		`{"secrets":[{"name":"one","$patch":"delete"}]}`)
	jsoneq.Assert(t, r.get("secrets").Raw, `[{"name":"two"}]`)
	// Custom resources take none, as in kube-apiserver.
	s.create("/apis/shop.example.com/v1/namespaces/default/widgets",
		`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red","size":1}}`)
	r = s.do(http.MethodPatch, "/apis/shop.example.com/v1/namespaces/default/widgets/w", "application/strategic-merge-patch+json", `{}`)
	wantStatus(t, r, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
}

// An APIService is stored with Available False and the reason that dynapi
// aggregates no APIs, whatever a write sends; the condition's time stays
// across updates, and other conditions are the writer's.
func TestAPIServiceStrategy(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	const apiservices = "/apis/apiregistration.k8s.io/v1/apiservices"
	created := s.create(apiservices, `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1beta1.metrics.k8s.io"},
		"spec":{"group":"metrics.k8s.io","version":"v1beta1","groupPriorityMinimum":100,"versionPriority":100,
		"service":{"namespace":"kube-system","name":"metrics-server"}},
		"status":{"conditions":[{"type":"Available","status":"True","reason":"Passed","lastTransitionTime":"2020-01-01T00:00:00Z"}]}}`)
	cond := created.get(`status.conditions.#(type=="Available")`)
	if cond.Get("status").String() != "False" || cond.Get("reason").String() != "AggregationNotSupported" ||
		cond.Get("message").String() != "dynapi does not proxy requests to aggregated API servers" ||
		cond.Get("lastTransitionTime").String() == "2020-01-01T00:00:00Z" {
		t.Fatalf("created: %s", created.body)
	}
	patched := s.mustDo(http.StatusOK, http.MethodPatch, apiservices+"/v1beta1.metrics.k8s.io", mergePatch,
		`{"status":{"conditions":[{"type":"Available","status":"True","reason":"Passed","lastTransitionTime":"2020-01-01T00:00:00Z"},
		{"type":"Custom","status":"True","reason":"Mine","lastTransitionTime":"2020-01-01T00:00:00Z"}]}}`)
	jsoneq.Assert(t, patched.get("status.conditions").Raw, `[`+cond.Raw+`,
		{"type":"Custom","status":"True","reason":"Mine","lastTransitionTime":"2020-01-01T00:00:00Z"}]`)
}
