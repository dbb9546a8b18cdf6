package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestApplyAcrossVersions: managedFields are kept per apiVersion, and an
// apply through v2 after an update through v1 sees the conflict on the
// field v1 calls spec.owner and v2 spec.maintainer (Pipe's conversion
// renames it), as kube-apiserver converts objects between versions to
// compare them with each manager's fields. The conflict names the field
// as its manager recorded it, in that manager's apiVersion (the "using"
// of the message): structured-merge-diff's Updater intersects each
// manager's set with the change converted to the manager's version.
func TestApplyAcrossVersions(t *testing.T) {
	s := newTestServer(t)
	s.create(pipesV1+"?fieldManager=maker", `{"apiVersion":"plumbing.example.com/v1","kind":"Pipe","metadata":{"name":"p"},
		"spec":{"diameter":100,"material":"steel"}}`)
	s.mustDo(http.StatusOK, http.MethodPatch, pipesV1+"/p?fieldManager=alice", "application/merge-patch+json",
		`{"spec":{"owner":"team-water"}}`)
	applied := "apiVersion: plumbing.example.com/v2\nkind: Pipe\nmetadata:\n  name: p\nspec:\n  maintainer: team-gas\n"
	r := s.do(http.MethodPatch, pipesV2+"/p?fieldManager=bob", applyType, applied)
	wantStatus(t, r, http.StatusConflict, "Conflict")
	causes := r.get("details.causes").Array()
	if len(causes) != 1 || causes[0].Get("field").Str != ".spec.owner" ||
		causes[0].Get("message").Str != `conflict with "alice" using plumbing.example.com/v1` {
		t.Fatalf("conflict: %s", r)
	}
	r = s.mustDo(http.StatusOK, http.MethodPatch, pipesV2+"/p?fieldManager=bob&force=true", applyType, applied)
	if r.get("spec.maintainer").Str != "team-gas" {
		t.Fatalf("force: %s", r)
	}
	versions := map[string]string{}
	for _, e := range r.get("metadata.managedFields").Array() {
		versions[e.Get("manager").Str+"/"+e.Get("operation").Str] = e.Get("apiVersion").Str
		if e.Get("manager").Str == "alice" && strings.Contains(e.Get("fieldsV1").Raw, "f:owner") {
			t.Fatalf("alice still owns the owner: %s", r)
		}
	}
	want := map[string]string{"maker/Update": "plumbing.example.com/v1", "bob/Apply": "plumbing.example.com/v2"}
	for m, v := range want {
		if versions[m] != v {
			t.Fatalf("%s: apiVersion %q, want %q: %s", m, versions[m], v, r.get("metadata.managedFields").Raw)
		}
	}
	// Read back in v1, the field is v1's owner, and bob's: an Apply entry's
	// conflict does not name its apiVersion (kube's manager identifier for
	// an applier leaves it out), and names the field as bob applied it.
	r = s.mustDo(http.StatusOK, http.MethodGet, pipesV1+"/p", "", "")
	if r.get("spec.owner").Str != "team-gas" {
		t.Fatalf("v1 read: %s", r)
	}
	r = s.do(http.MethodPatch, pipesV1+"/p?fieldManager=carol", applyType,
		"apiVersion: plumbing.example.com/v1\nkind: Pipe\nmetadata:\n  name: p\nspec:\n  owner: team-oil\n")
	wantStatus(t, r, http.StatusConflict, "Conflict")
	if r.get("details.causes.0.field").Str != ".spec.maintainer" ||
		r.get("details.causes.0.message").Str != `conflict with "bob"` {
		t.Fatalf("v1 conflict: %s", r)
	}
}
