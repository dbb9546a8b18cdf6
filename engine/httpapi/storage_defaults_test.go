package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// loadWithWidgetFinish loads the shipped definitions with a field added to
// Widget's schema (both versions share it), spec.finish, defaulted to
// "matte" and shown in a printer column.
func loadWithWidgetFinish(t *testing.T) *registry.Snapshot {
	t.Helper()
	return loadShippedEdited(t, "shop.example.com/widget.yaml", func(src string) string {
		edited := strings.Replace(src, "          size:\n", "          finish: {type: string, default: matte}\n          size:\n", 1)
		edited = strings.Replace(edited, "  - name: Size\n", "  - name: Finish\n    type: string\n    jsonPath: .spec.finish\n  - name: Size\n", 1)
		if strings.Count(edited, "finish") != 2 {
			t.Fatal("the shipped widget.yaml changed shape: update this test's edit")
		}
		return edited
	})
}

// TestStorageDefaultsOnRead stores a Widget, then gives its schema a new
// defaulted field: as kube-apiserver, every read (get, list, Table, watch,
// a write's answer) shows the default, while the stored row keeps its body
// until the object is written again.
func TestStorageDefaultsOnRead(t *testing.T) {
	var snapshots atomic.Pointer[registry.Snapshot]
	s := newTestServerWith(t, &snapshots, snapshots.Store)
	before := s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "").get("metadata.resourceVersion").String()
	s.create(widgets, widget("old", `{"size":3}`))
	snapshots.Store(loadWithWidgetFinish(t))

	hasFinish := func(what string, obj gjson.Result) {
		t.Helper()
		if got := obj.Get("spec.finish").String(); got != "matte" {
			t.Errorf("%s: spec.finish = %q, want the new default: %s", what, got, obj.Raw)
		}
	}
	hasFinish("get", s.mustDo(http.StatusOK, http.MethodGet, widgets+"/old", "", "").get("@this"))
	hasFinish("get v1beta1", s.mustDo(http.StatusOK, http.MethodGet, strings.Replace(widgets, "/v1/", "/v1beta1/", 1)+"/old", "", "").get("@this"))
	hasFinish("list", s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "").get("items.0"))
	hasFinish("list page", s.mustDo(http.StatusOK, http.MethodGet, widgets+"?limit=1", "", "").get("items.0"))
	table := s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "", "Accept", "application/json;as=Table;g=meta.k8s.io;v=v1")
	if col := table.get(`columnDefinitions.#(name=="Finish")`); !col.Exists() || !strings.Contains(table.get("rows.0.cells").Raw, `"matte"`) {
		t.Errorf("Table without the defaulted Finish: %s", table)
	}
	initial := s.watch(widgets + "?watch=true")
	hasFinish("watch, initial event", initial.expect("ADDED", "old").Get("object"))
	replay := s.watch(widgets + "?watch=true&resourceVersion=" + before)
	hasFinish("watch, event of the create", replay.expect("ADDED", "old").Get("object"))

	key := engine.ObjectKey{Resource: engine.GroupResource{Group: "shop.example.com", Resource: "widgets"}, Namespace: "default", Name: "old"}
	stored, err := s.store.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(stored.Body, "spec.finish").Exists() {
		t.Fatalf("a read wrote the default into the stored row: %s", stored.Body)
	}

	// Writing back what was read changes nothing but the default, and
	// stores it (as kube-apiserver, which compares with the stored bytes).
	read := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/old", "", "")
	written := s.mustDo(http.StatusOK, http.MethodPut, widgets+"/old", "application/json", read.String())
	if written.get("metadata.resourceVersion").String() == read.get("metadata.resourceVersion").String() {
		t.Errorf("writing the defaulted object back wrote nothing: %s", written)
	}
	if written.get("metadata.generation").Int() != read.get("metadata.generation").Int() {
		t.Errorf("a default the object already showed changed its generation: %s", written)
	}
	hasFinish("watch, event of the write", initial.expect("MODIFIED", "old").Get("object"))
	if stored, err = s.store.Get(context.Background(), key); err != nil || gjson.GetBytes(stored.Body, "spec.finish").String() != "matte" {
		t.Fatalf("the write did not store the default: %s, %v", stored.Body, err)
	}
	again := s.mustDo(http.StatusOK, http.MethodPut, widgets+"/old", "application/json", written.String())
	if again.get("metadata.resourceVersion").String() != written.get("metadata.resourceVersion").String() {
		t.Errorf("an update that changes nothing wrote: %s", again)
	}
}

// TestStorageDefaultsInWriteAnswers checks the answers of writes to objects
// stored before their schema's default: a status patch and a delete answer
// with it.
func TestStorageDefaultsInWriteAnswers(t *testing.T) {
	var snapshots atomic.Pointer[registry.Snapshot]
	s := newTestServerWith(t, &snapshots, snapshots.Store)
	s.create(widgets, widget("patched", `{"size":3}`))
	s.create(widgets, widget("deleted", `{"size":3}`))
	snapshots.Store(loadWithWidgetFinish(t))
	patched := s.mustDo(http.StatusOK, http.MethodPatch, widgets+"/patched/status", "application/merge-patch+json", `{"status":{"phase":"Ready"}}`)
	if patched.get("spec.finish").String() != "matte" {
		t.Errorf("status patch answer: %s", patched)
	}
	deleted := s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/deleted", "", "")
	if deleted.get("spec.finish").String() != "matte" {
		t.Errorf("delete answer: %s", deleted)
	}
}
