package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

const (
	svmGroupVersion = "/apis/storagemigration.k8s.io/v1"
	svms            = svmGroupVersion + "/storageversionmigrations"
	// svmLabel and testCondition are those of kube's conformance test.
	svmLabel      = "test.storagemigration.example.com"
	testCondition = `{"type": "TestCondition", "status": "True", "reason": "TestReason", "message": "TestMessage", "lastTransitionTime": "2026-01-01T00:00:00Z"}`
)

// initialSVM is the conformance test's object: a migration of "foo" in
// the core group, which no server serves (its migration waits, then
// fails), labelled as the test labels it.
const initialSVM = `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration",
	"metadata":{"name":"test-crud","labels":{"e2e-test.kubernetes.io":"crud"}},"spec":{"resource":{"group":"","resource":"foo"}}}`

// updateRetrying GETs path, edits the object and PUTs it to path+sub
// until no Conflict answers (the controller writes the status meanwhile),
// as the conformance test retries.
func (s *testServer) updateRetrying(path, sub string, edit func(obj string) string) response {
	s.t.Helper()
	for range 10 {
		obj := s.mustDo(http.StatusOK, http.MethodGet, path, "", "")
		r := s.do(http.MethodPut, path+sub, "application/json", edit(obj.String()))
		if r.code != http.StatusConflict {
			return r
		}
	}
	s.t.Fatalf("PUT %s%s: Conflict ten times", path, sub)
	return response{}
}

// TestStorageVersionMigrationCRUD is Kubernetes' conformance test
// "storagemigration.k8s.io/v1 StorageVersionMigration"
// (test/e2e/apimachinery/storage_version_migration.go with
// e2econformance.TestResource), step by step over HTTP: discovery, create
// (Strict), get, update of the metadata, update and get of /status, then
// each patch type of the spec and of the status on a re-created object.
func TestStorageVersionMigrationCRUD(t *testing.T) {
	s := newTestServer(t)
	api := s.mustDo(http.StatusOK, http.MethodGet, svmGroupVersion, "", "")
	var names []string
	for _, r := range api.get("resources").Array() {
		names = append(names, r.Get("name").Str)
	}
	if !slices.Contains(names, "storageversionmigrations") || !slices.Contains(names, "storageversionmigrations/status") {
		t.Fatalf("%s lists %v", svmGroupVersion, names)
	}
	path := svms + "/test-crud"
	created := s.mustDo(http.StatusCreated, http.MethodPost, svms+"?fieldValidation=Strict", "application/json", initialSVM)
	s.mustDo(http.StatusOK, http.MethodGet, path, "", "")
	if list := s.mustDo(http.StatusOK, http.MethodGet, svms+"?labelSelector=e2e-test.kubernetes.io%3Dcrud", "", ""); list.get("items.#").Int() != 1 {
		t.Fatalf("list by the test's label: %s", list)
	}
	updated := s.updateRetrying(path, "", func(obj string) string {
		out, _ := sjson.Set(obj, "metadata.labels."+gjson.Escape(svmLabel), "test")
		return out
	})
	if updated.code != http.StatusOK || updated.get("metadata.labels."+gjson.Escape(svmLabel)).Str != "test" ||
		updated.get("metadata.resourceVersion").Int() <= created.get("metadata.resourceVersion").Int() {
		t.Fatalf("update: %d %s", updated.code, updated)
	}
	status := s.updateRetrying(path, "/status", func(obj string) string {
		out, _ := sjson.SetRaw(obj, "status.conditions.-1", testCondition)
		return out
	})
	wantTestCondition(t, "update status", status)
	wantTestCondition(t, "get status", s.mustDo(http.StatusOK, http.MethodGet, path+"/status", "", ""))

	patch := `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":"test-crud","labels":{"` + svmLabel + `":"test"}}}`
	for _, p := range []struct{ contentType, query, body string }{
		{"application/strategic-merge-patch+json", "?fieldValidation=Strict", patch},
		{"application/apply-patch+yaml", "?fieldValidation=Strict&fieldManager=test-apply&force=true", patch},
		{"application/merge-patch+json", "?fieldValidation=Strict", patch},
		{"application/json-patch+json", "?fieldValidation=Strict", `[{"op": "add", "path": "/metadata/labels/test.storagemigration.example.com", "value": "test"}]`},
	} {
		s.recreate(path)
		r := s.mustDo(http.StatusOK, http.MethodPatch, path+p.query, p.contentType, p.body)
		if r.get("metadata.labels."+gjson.Escape(svmLabel)).Str != "test" || r.get("spec.resource.resource").Str != "foo" {
			t.Errorf("patch %s: %s", p.contentType, r)
		}
	}
	statusPatch := `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":"test-crud"},"status":{"conditions":[` + testCondition + `]}}`
	for _, p := range []struct{ contentType, query, body string }{
		{"application/strategic-merge-patch+json", "", statusPatch},
		{"application/apply-patch+yaml", "?fieldManager=test-apply&force=true", statusPatch},
		{"application/merge-patch+json", "", statusPatch},
		{"application/json-patch+json", "", `[{"op": "add", "path": "/status/conditions", "value": [` + testCondition + `]}]`},
	} {
		s.recreate(path)
		r := s.patchRetrying(path+"/status"+p.query, p.contentType, p.body)
		wantTestCondition(t, "patch status "+p.contentType, r)
	}
	s.mustDo(http.StatusOK, http.MethodDelete, path, "", "")
	s.mustDo(http.StatusNotFound, http.MethodGet, path, "", "")
}

// recreate deletes the migration at path and creates it again, as the
// conformance test does before each patch.
func (s *testServer) recreate(path string) {
	s.t.Helper()
	s.mustDo(http.StatusOK, http.MethodDelete, path, "", "")
	s.mustDo(http.StatusNotFound, http.MethodGet, path, "", "")
	s.mustDo(http.StatusCreated, http.MethodPost, svms, "application/json", initialSVM)
}

// patchRetrying sends a patch until no Conflict answers: a JSON patch that
// adds status.conditions replaces the controller's Running, which the
// controller may write meanwhile.
func (s *testServer) patchRetrying(path, contentType, body string) response {
	s.t.Helper()
	for range 10 {
		if r := s.do(http.MethodPatch, path, contentType, body); r.code != http.StatusConflict {
			return r
		}
	}
	s.t.Fatalf("PATCH %s: Conflict ten times", path)
	return response{}
}

func wantTestCondition(t *testing.T, what string, r response) {
	t.Helper()
	c := r.get(`status.conditions.#(type=="TestCondition")`)
	if r.code != http.StatusOK || c.Get("reason").Str != "TestReason" || c.Get("lastTransitionTime").Str != "2026-01-01T00:00:00Z" ||
		r.get("spec.resource.resource").Str != "foo" {
		t.Errorf("%s: %d %s", what, r.code, r)
	}
}

// Every bad StorageVersionMigration gets kube-apiserver's 422, with the
// field and message of its validation (pkg/apis/storagemigration/validation).
func TestStorageVersionMigrationRefusals(t *testing.T) {
	s := newTestServer(t)
	svm := func(group, res string) string {
		out, _ := sjson.Set(initialSVM, "spec.resource", map[string]string{"group": group, "resource": res})
		return out
	}
	for _, tt := range []struct {
		name, body, field, message string
	}{
		{"no resource", svm("", ""), "spec.resource.resource", "Required value: resource is required to be set"},
		{"resource not a DNS-1035 label", svm("", "Foo"), "spec.resource.resource",
			`Invalid value: "Foo": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`},
		{"group not a DNS-1123 subdomain", svm("bad_group", "foo"), "spec.resource.group",
			`Invalid value: "bad_group": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantCause(t, s.do(http.MethodPost, svms, "application/json", tt.body), tt.field, tt.message)
		})
	}

	path := svms + "/test-crud"
	created := s.create(svms, strictCopy(initialSVM, "status", `{"resourceVersion":"1"}`))
	if created.get("status.resourceVersion").Exists() {
		t.Errorf("a create keeps the status it was sent: %s", created)
	}
	wantCause(t, s.updateRetrying(path, "", func(obj string) string { return strictCopy(obj, "spec.resource.resource", `"bar"`) }),
		"spec", `Invalid value: {"Resource":{"group":"","resource":"bar"}}: field is immutable`)
	s.mustDo(http.StatusOK, http.MethodGet, path, "", "") // nothing was written
	// Retrying: the migration controller writes the status too.
	if r := s.updateRetrying(path, "/status", func(obj string) string { return strictCopy(obj, "status.resourceVersion", `"12"`) }); r.code != http.StatusOK {
		t.Fatalf("PUT %s/status: %d %s", path, r.code, r.body)
	}
	for _, tt := range []struct {
		name, field, value, cause, message string
	}{
		{"resourceVersion changed", "status.resourceVersion", `"13"`, "status.resourceVersion", `Invalid value: "13": field is immutable`},
		{"both Succeeded and Failed", "status.conditions",
			`[{"type":"Succeeded","status":"True","reason":"R","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"},` +
				`{"type":"Failed","status":"True","reason":"R","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]`,
			"status.conditions", "Both success and failed conditions cannot be true at the same time"},
		{"a condition without a reason", "status.conditions",
			`[{"type":"Succeeded","status":"True","reason":"","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]`,
			"status.conditions[0].reason", "Required value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := s.updateRetrying(path, "/status", func(obj string) string { return strictCopy(obj, tt.field, tt.value) })
			wantCause(t, r, tt.cause, tt.message)
		})
	}
}

// strictCopy is obj with field set to the JSON value.
func strictCopy(obj, field, value string) string {
	out, _ := sjson.SetRaw(obj, field, value)
	return out
}

// wantCause checks that r is a 422 with a cause at field whose message
// contains message.
func wantCause(t *testing.T, r response, field, message string) {
	t.Helper()
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid")
	for _, c := range r.get("details.causes").Array() {
		if c.Get("field").Str == field && strings.Contains(c.Get("message").Str, message) {
			return
		}
	}
	t.Errorf("want a cause at %s: %q; got %s", field, message, r.get("details.causes").Raw)
}
