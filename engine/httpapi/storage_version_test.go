package httpapi_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/storagemigration"
)

// loadWithPipeStoredInV1 loads the shipped definitions with Pipe's storage
// version moved from v2 (its hub) to v1.
func loadWithPipeStoredInV1(t *testing.T) *registry.Snapshot {
	t.Helper()
	return loadShippedEdited(t, "plumbing.example.com/pipe.yaml", func(src string) string {
		flipped := strings.Replace(src, "  storage: true\n", "  storage: false\n", 1)
		flipped = strings.Replace(flipped, "- name: v1\n  served: true\n", "- name: v1\n  served: true\n  storage: true\n", 1)
		if strings.Count(flipped, "storage: true") != 1 || !strings.Contains(flipped, "- name: v1\n  served: true\n  storage: true") {
			t.Fatal("the shipped pipe.yaml changed shape: update this test's edit")
		}
		return flipped
	})
}

// loadShippedEdited loads the shipped definitions with one file (a path
// under schemas/) changed by edit.
func loadShippedEdited(t *testing.T, file string, edit func(string) string) *registry.Snapshot {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../schemas")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.FromSlash(file))
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	snap, problems := registry.Load(os.DirFS(dir), os.DirFS("../../conversions"))
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	return snap
}

// TestStorageVersionChange stores objects in a version that cannot hold all
// of them (v1), reads them in the hub, and migrates rows between storage
// versions: nothing is lost on the way.
func TestStorageVersionChange(t *testing.T) {
	var snapshots atomic.Pointer[registry.Snapshot]
	var hubStorage *registry.Snapshot
	s := newTestServerWith(t, &snapshots, func(snap *registry.Snapshot) { hubStorage = snap; snapshots.Store(snap) })
	full := `{"apiVersion":"plumbing.example.com/v2","kind":"Pipe","metadata":{"name":"%s"},
		"spec":{"size":{"diameter":80,"wallThickness":2.5},"material":"Copper","outlets":["a","b"],"pressure":6.5,"insulation":"Wool"}}`
	s.create(pipesV2, strings.Replace(full, "%s", "old", 1)) // stored in v2

	v1Storage := loadWithPipeStoredInV1(t)
	snapshots.Store(v1Storage)
	s.create(pipesV2, strings.Replace(full, "%s", "new", 1)) // stored in v1, with a remainder
	wantAll := map[string]string{"spec.size.wallThickness": "2.5", "spec.outlets": `["a","b"]`, "spec.pressure": "6.5", "spec.insulation": `"Wool"`}
	for _, name := range []string{"old", "new"} {
		wantFields(t, s.mustDo(http.StatusOK, http.MethodGet, pipesV2+"/"+name, "", ""), wantAll)
	}

	res, _ := v1Storage.ResourceByKind("plumbing.example.com", "Pipe")
	report, err := storagemigration.Run(context.Background(), resource.New(s.store), res, storagemigration.Options{Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	if report.Before["v1"] != 1 || report.Before["v2"] != 1 || report.Rewritten != 1 {
		t.Fatalf("migrate into v1: %+v", report)
	}
	again, err := storagemigration.Run(context.Background(), resource.New(s.store), res, storagemigration.Options{Batch: 1})
	if err != nil || again.Rewritten != 0 || again.Before["v1"] != 2 || again.Total != 2 || again.Pending() != 0 {
		t.Fatalf("second migrate: %+v, %v", again, err)
	}
	for _, name := range []string{"old", "new"} {
		wantFields(t, s.mustDo(http.StatusOK, http.MethodGet, pipesV2+"/"+name, "", ""), wantAll)
	}

	snapshots.Store(hubStorage) // back to v2: rows stored in v1 still read whole
	for _, name := range []string{"old", "new"} {
		wantFields(t, s.mustDo(http.StatusOK, http.MethodGet, pipesV2+"/"+name, "", ""), wantAll)
	}
}

// TestNamespaceDeletionKeepsMarkedObjectsWhole: an object with a finalizer,
// stored in a version that cannot hold all of it, is marked for deletion
// when its namespace is deleted, and still reads whole: its stored version
// and remainder are written back with it.
func TestNamespaceDeletionKeepsMarkedObjectsWhole(t *testing.T) {
	var snapshots atomic.Pointer[registry.Snapshot]
	s := newTestServerWith(t, &snapshots, func(*registry.Snapshot) { snapshots.Store(loadWithPipeStoredInV1(t)) })
	s.create("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"doomed"}}`)
	pipe := "/apis/plumbing.example.com/v2/namespaces/doomed/pipes"
	s.create(pipe, `{"apiVersion":"plumbing.example.com/v2","kind":"Pipe","metadata":{"name":"held","finalizers":["example.com/hold"]},
		"spec":{"size":{"diameter":80,"wallThickness":2.5},"material":"Copper","outlets":["a","b"],"pressure":6.5,"insulation":"Wool"}}`)

	s.mustDo(http.StatusOK, http.MethodDelete, "/api/v1/namespaces/doomed", "", "")
	marked := s.eventually(http.MethodGet, pipe+"/held", func(r response) bool { return r.get("metadata.deletionTimestamp").Exists() })
	wantFields(t, marked, map[string]string{"spec.size.diameter": "80", "spec.size.wallThickness": "2.5", "spec.material": `"Copper"`,
		"spec.outlets": `["a","b"]`, "spec.pressure": "6.5", "spec.insulation": `"Wool"`})
}
