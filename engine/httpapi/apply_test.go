package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

const (
	applyType   = "application/apply-patch+yaml"
	labsWidgets = "/apis/labs.example.com/v1alpha1/namespaces/default/widgets"
	shopWidgets = "/apis/shop.example.com/v1/namespaces/default/widgets"
)

func labsWidget(name, spec string) string {
	return "apiVersion: labs.example.com/v1alpha1\nkind: Widget\nmetadata:\n  name: " + name + "\nspec:\n" + spec
}

// managers lists "manager/operation" of every managedFields entry.
func managers(r response) string {
	var out []string
	for _, e := range r.get("metadata.managedFields").Array() {
		out = append(out, e.Get("manager").Str+"/"+e.Get("operation").Str)
	}
	return strings.Join(out, ",")
}

func TestApplyCreateUpdateAndConflict(t *testing.T) {
	s := newTestServer(t)
	path := labsWidgets + "/a"
	r := s.mustDo(http.StatusCreated, http.MethodPatch, path+"?fieldManager=alice", applyType,
		labsWidget("a", "  port: 80\n  replicas: 1\n"))
	if managers(r) != "alice/Apply" || r.get("spec.replicas").Int() != 1 {
		t.Fatalf("apply-create: %s", r)
	}
	e := r.get("metadata.managedFields.0")
	if e.Get("apiVersion").Str != "labs.example.com/v1alpha1" || e.Get("fieldsType").Str != "FieldsV1" ||
		!e.Get("fieldsV1.f:spec.f:replicas").Exists() || e.Get("time").Str == "" {
		t.Fatalf("entry: %s", e.Raw)
	}
	r = s.mustDo(http.StatusOK, http.MethodPatch, path+"?fieldManager=alice", applyType,
		labsWidget("a", "  port: 80\n  replicas: 2\n"))
	if r.get("spec.replicas").Int() != 2 || managers(r) != "alice/Apply" {
		t.Fatalf("apply-update: %s", r)
	}
	r = s.do(http.MethodPatch, path+"?fieldManager=bob", applyType, labsWidget("a", "  port: 80\n  replicas: 3\n"))
	wantStatus(t, r, http.StatusConflict, "Conflict")
	// port has the same value: shared, not a conflict.
	causes := r.get("details.causes").Array()
	if len(causes) != 1 || causes[0].Get("reason").Str != "FieldManagerConflict" ||
		causes[0].Get("message").Str != `conflict with "alice"` || causes[0].Get("field").Str != ".spec.replicas" {
		t.Fatalf("conflict causes: %s", r)
	}
	r = s.mustDo(http.StatusOK, http.MethodPatch, path+"?fieldManager=bob&force=true", applyType,
		labsWidget("a", "  port: 80\n  replicas: 3\n"))
	if r.get("spec.replicas").Int() != 3 || managers(r) != "alice/Apply,bob/Apply" {
		t.Fatalf("force: %s", r)
	}
	if strings.Contains(r.get(`metadata.managedFields.0.fieldsV1.f:spec`).Raw, "f:replicas") {
		t.Fatalf("alice still owns replicas: %s", r)
	}
}

func TestApplyRemovesFieldItOwned(t *testing.T) {
	s := newTestServer(t)
	path := labsWidgets + "/b"
	s.mustDo(http.StatusCreated, http.MethodPatch, path+"?fieldManager=alice", applyType,
		labsWidget("b", "  port: 80\n  color: red\n"))
	r := s.mustDo(http.StatusOK, http.MethodPatch, path+"?fieldManager=alice", applyType, labsWidget("b", "  port: 80\n"))
	if r.get("spec.color").Exists() {
		t.Fatalf("color kept: %s", r)
	}
}

func TestApplyListMerges(t *testing.T) {
	s := newTestServer(t)
	path := labsWidgets + "/c"
	s.mustDo(http.StatusCreated, http.MethodPatch, path+"?fieldManager=alice", applyType, labsWidget("c",
		"  port: 80\n  ports:\n  - name: http\n    containerPort: 80\n  hosts: [a]\n  args: [one]\n"))
	r := s.mustDo(http.StatusOK, http.MethodPatch, path+"?fieldManager=bob", applyType, labsWidget("c",
		"  ports:\n  - name: https\n    containerPort: 443\n  hosts: [b]\n"))
	if got := r.get("spec.ports.#.name").Raw; got != `["http","https"]` {
		t.Fatalf("list-map merge: %s", r)
	}
	if got := r.get("spec.hosts").Raw; got != `["a","b"]` {
		t.Fatalf("set merge: %s", r)
	}
	if !strings.Contains(r.get("metadata.managedFields.1.fieldsV1").Raw, `k:{\"name\":\"https\"}`) {
		t.Fatalf("bob's entry: %s", r)
	}
	// An atomic list belongs to one manager as a whole.
	r = s.do(http.MethodPatch, path+"?fieldManager=bob", applyType, labsWidget("c", "  args: [two]\n"))
	wantStatus(t, r, http.StatusConflict, "Conflict")
	if r.get("details.causes.0.field").Str != ".spec.args" {
		t.Fatalf("atomic conflict: %s", r)
	}
}

func TestApplyStatusAndDryRun(t *testing.T) {
	s := newTestServer(t)
	path := labsWidgets + "/d"
	r := s.mustDo(http.StatusCreated, http.MethodPatch, path+"?fieldManager=alice&dryRun=All", applyType,
		labsWidget("d", "  port: 80\n"))
	if managers(r) != "alice/Apply" {
		t.Fatalf("dry run: %s", r)
	}
	s.mustDo(http.StatusNotFound, http.MethodGet, path, "", "")
	s.mustDo(http.StatusCreated, http.MethodPatch, path+"?fieldManager=alice", applyType, labsWidget("d", "  port: 80\n"))
	r = s.mustDo(http.StatusOK, http.MethodPatch, path+"/status?fieldManager=ctrl", applyType,
		labsWidget("d", "")+"status:\n  readyReplicas: 1\n  conditions:\n  - type: Ready\n    status: \"True\"\n")
	if r.get("status.readyReplicas").Int() != 1 || managers(r) != "alice/Apply,ctrl/Apply" ||
		r.get("metadata.managedFields.1.subresource").Str != "status" {
		t.Fatalf("status apply: %s", r)
	}
	r = s.mustDo(http.StatusOK, http.MethodPatch, path+"?fieldManager=alice&dryRun=All", applyType, labsWidget("d", "  port: 81\n"))
	if r.get("spec.port").Int() != 81 {
		t.Fatalf("dry-run update: %s", r)
	}
	if r = s.mustDo(http.StatusOK, http.MethodGet, path, "", ""); r.get("spec.port").Int() != 80 {
		t.Fatalf("dry run wrote: %s", r)
	}
}

func TestApplyOptions(t *testing.T) {
	s := newTestServer(t)
	path := labsWidgets + "/e"
	r := s.do(http.MethodPatch, path, applyType, labsWidget("e", "  port: 80\n"))
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid")
	if !strings.Contains(r.get("message").Str, "fieldManager: Required value") {
		t.Fatalf("no fieldManager: %s", r)
	}
	r = s.do(http.MethodPatch, path+"?fieldManager="+strings.Repeat("m", 129), applyType, labsWidget("e", "  port: 80\n"))
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid")
	r = s.do(http.MethodPost, labsWidgets+"?fieldManager="+strings.Repeat("m", 129), "application/json", `{}`)
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid")
	r = s.do(http.MethodPatch, path+"?fieldManager=a", "application/apply-patch+cbor", "\xa0")
	wantStatus(t, r, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
	r = s.do(http.MethodPatch, path+"?force=true", "application/merge-patch+json", `{}`)
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid")
}

func TestManagedFieldsOnUpdates(t *testing.T) {
	s := newTestServer(t)
	r := s.create(shopWidgets+"?fieldManager=maker", `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"u"},"spec":{"size":1}}`)
	if managers(r) != "maker/Update" || !r.get("metadata.managedFields.0.fieldsV1.f:spec.f:size").Exists() {
		t.Fatalf("create: %s", r)
	}
	r = s.mustDo(http.StatusOK, http.MethodPatch, shopWidgets+"/u", "application/merge-patch+json", `{"spec":{"size":2}}`,
		"User-Agent", "kubectl/v1.37.0 (linux/amd64)")
	// Sorted as kube-apiserver sorts them: by time, then by manager, so
	// the order depends on whether the patch fell in the create's second.
	if m := managers(r); m != "kubectl/Update,maker/Update" && m != "maker/Update,kubectl/Update" {
		t.Fatalf("patch: %s", r)
	}
	// kubectl's entry is first or second, as the patch's time fell: the
	// JSON patch below addresses it where it is.
	entry := fmt.Sprintf("/metadata/managedFields/%d/manager", slices.Index(strings.Split(managers(r), ","), "kubectl/Update"))
	// An apply conflicts with the fields an update set.
	r = s.do(http.MethodPatch, shopWidgets+"/u?fieldManager=applier", applyType,
		"apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: u\nspec:\n  size: 5\n")
	wantStatus(t, r, http.StatusConflict, "Conflict")
	if !strings.Contains(r.get("details.causes.0.message").Str, `"kubectl"`) {
		t.Fatalf("conflict: %s", r)
	}
	// A JSON patch may address the list's entries: it applies to the whole
	// object, managedFields with it, though the pipeline carries them apart.
	r = s.mustDo(http.StatusOK, http.MethodPatch, shopWidgets+"/u", "application/json-patch+json",
		`[{"op":"test","path":"`+entry+`","value":"kubectl"},`+
			`{"op":"replace","path":"`+entry+`","value":"renamed"}]`)
	if managers(r) != "maker/Update,renamed/Update" {
		t.Fatalf("JSON patch of an entry: %s", r)
	}
	// managedFields: [] clears them.
	cur := s.mustDo(http.StatusOK, http.MethodGet, shopWidgets+"/u", "", "")
	r = s.mustDo(http.StatusOK, http.MethodPatch, shopWidgets+"/u", "application/merge-patch+json", `{"metadata":{"managedFields":[]}}`)
	if r.get("metadata.managedFields").Exists() {
		t.Fatalf("reset: %s (was %s)", r, cur.get("metadata.managedFields").Raw)
	}
	// A write that changes only the list is stored: a new resourceVersion.
	if got := s.mustDo(http.StatusOK, http.MethodGet, shopWidgets+"/u", "", ""); got.get("metadata.managedFields").Exists() ||
		got.get("metadata.resourceVersion").Str == cur.get("metadata.resourceVersion").Str {
		t.Fatalf("reset not stored: %s (was %s)", got, cur)
	}
}
