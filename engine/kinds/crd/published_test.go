package crd_test

import (
	"context"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/wait"
)

const (
	widgetFile  = "shop.example.com/widget.yaml"
	widgetsCRD  = crds + "/widgets.shop.example.com"
	widgetsPath = "/apis/shop.example.com/v1/namespaces/default/widgets"
	robotsCRD   = crds + "/robots.toys.example.com"
)

// A process leaves alone what another published from files it lacks:
// when b, which has no widget file, reloads its files, the definition a
// published from it and the widgets stay, as they were.
func TestReloadKeepsOthersPublications(t *testing.T) {
	db := pgtest.Open(t)
	a := startProcessWith(t, db, shipped)
	b := startProcessWith(t, db, without(t, shipped, widgetFile))
	a.must(http.StatusCreated, http.MethodPost, widgetsPath, widget("w1"))
	before := a.must(http.StatusOK, http.MethodGet, widgetsCRD, "")

	b.write("toys.example.com/robot.json", string(crdJSON("toys.example.com", "robots", "Robot")))
	b.reloaded(http.StatusOK, robotsCRD) // and published its new file

	after := a.must(http.StatusOK, http.MethodGet, widgetsCRD, "")
	sameDefinition(t, before, after)
	a.must(http.StatusOK, http.MethodGet, widgetsPath+"/w1", "")
}

// A rolling replacement of a definition file, v1 to v2: the process that
// starts with v2 overwrites the definition (same uid), the one still on v1
// neither writes it back nor its status, and when v1's process loses the
// file by a reload, the definition v2 published stays; no widget is lost.
func TestRollingReplacementOfAFile(t *testing.T) {
	db := pgtest.Open(t)
	old := startProcessWith(t, db, shipped)
	old.must(http.StatusCreated, http.MethodPost, widgetsPath, widget("w1"))
	v1 := old.must(http.StatusOK, http.MethodGet, widgetsCRD, "")

	next := startProcessWith(t, db, widgetV2(t))
	v2 := next.must(http.StatusOK, http.MethodGet, widgetsCRD, "")
	if uid(v2) != uid(v1) || hash(v2) == hash(v1) || !strings.Contains(gjson.GetBytes(v2, "spec").Raw, "Widget, v2, is") {
		t.Fatalf("v2 does not overwrite v1's definition:\nv1 %s\nv2 %s", v1, v2)
	}
	settled(t, old, "widgets.shop.example.com")
	conditions(t, old, "widgets.shop.example.com", "NamesAccepted=True:NoConflicts", "Established=True:InitialNamesAccepted",
		"DefinitionFile=True:ServedByDefinitionFile")
	if got := old.must(http.StatusOK, http.MethodGet, widgetsCRD, ""); hash(got) != hash(v2) {
		t.Fatalf("the process on v1 wrote its file back: %s", got)
	}

	old.remove(widgetFile)
	old.reloaded(http.StatusNotFound, widgetsPath)
	sameDefinition(t, v2, next.must(http.StatusOK, http.MethodGet, widgetsCRD, ""))
	old.stop()
	next.must(http.StatusOK, http.MethodGet, widgetsPath+"/w1", "")
}

// A published definition deleted through a process without its file (how
// one left behind by a file removed while no process ran is removed) goes
// at once and keeps its kind's objects, even with kube's cleanup
// finalizer put on it by hand.
func TestPublishedDefinitionDeletedKeepsObjects(t *testing.T) {
	db := pgtest.Open(t)
	a := startProcessWith(t, db, shipped)
	b := startProcessWith(t, db, without(t, shipped, widgetFile))
	a.must(http.StatusCreated, http.MethodPost, widgetsPath, widget("w1"))
	b.must(http.StatusOK, http.MethodPatch, widgetsCRD, `{"metadata":{"finalizers":["customresourcecleanup.apiextensions.k8s.io"]}}`)
	b.must(http.StatusOK, http.MethodDelete, widgetsCRD, "")
	answers(t, http.StatusNotFound, widgetsCRD, a)
	key := engine.ObjectKey{Resource: engine.GroupResource{Group: "shop.example.com", Resource: "widgets"}, Namespace: "default", Name: "w1"}
	if _, err := a.store.Get(context.Background(), key); err != nil {
		t.Fatalf("a widget of the deleted published definition: %v", err)
	}
	a.must(http.StatusOK, http.MethodGet, widgetsPath+"/w1", "")
}

// A definition created through the API, by a process without the file,
// for a kind a file serves is the file's once a process with the file
// starts: overwritten with the file's spec and annotations (same uid; the
// file wins), served by the file, no longer through the API; the objects
// stay stored.
func TestFileTakesOverADefinitionThroughTheAPI(t *testing.T) {
	db := pgtest.Open(t)
	b := startProcessWith(t, db, without(t, shipped, widgetFile))
	v7 := strings.Replace(string(crdJSON("shop.example.com", "widgets", "Widget")), `"name":"v1"`, `"name":"v7"`, 1)
	created := b.must(http.StatusCreated, http.MethodPost, crds, v7)
	const v7Path = "/apis/shop.example.com/v7/namespaces/default/widgets"
	answers(t, http.StatusOK, v7Path, b)
	b.must(http.StatusCreated, http.MethodPost, v7Path, `{"apiVersion":"shop.example.com/v7","kind":"Widget","metadata":{"name":"w7"}}`)

	a := startProcessWith(t, db, shipped)
	taken := a.must(http.StatusOK, http.MethodGet, widgetsCRD, "")
	if uid(taken) != uid(created) || hash(taken) == "" || gjson.GetBytes(taken, `spec.versions.#(name=="v7")`).Exists() {
		t.Fatalf("the file did not take the definition over: %s", taken)
	}
	answers(t, http.StatusNotFound, v7Path, b)
	conditions(t, a, "widgets.shop.example.com", "NamesAccepted=True:NoConflicts", "Established=True:InitialNamesAccepted",
		"DefinitionFile=True:ServedByDefinitionFile")
	key := engine.ObjectKey{Resource: engine.GroupResource{Group: "shop.example.com", Resource: "widgets"}, Namespace: "default", Name: "w7"}
	if _, err := a.store.Get(context.Background(), key); err != nil {
		t.Fatalf("the widget created through the API's definition: %v", err)
	}
}

// widget is a Widget named name.
func widget(name string) string {
	return `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"size":3}}`
}

// widgetV2 is the shipped definition files with v2 of the widget file: a
// description changed.
func widgetV2(t *testing.T) fs.FS {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, shipped); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, widgetFile)
	v1, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v2 := strings.Replace(string(v1), "Widget is a product", "Widget, v2, is a product", 1)
	if err := os.WriteFile(path, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	return os.DirFS(dir)
}

// sameDefinition fails the test unless after is before, unchanged.
func sameDefinition(t *testing.T, before, after []byte) {
	t.Helper()
	rv := func(obj []byte) string { return gjson.GetBytes(obj, "metadata.resourceVersion").Str }
	if uid(after) != uid(before) || rv(after) != rv(before) {
		t.Fatalf("the published definition changed:\nbefore %s\nafter  %s", before, after)
	}
}

func uid(obj []byte) string { return gjson.GetBytes(obj, "metadata.uid").Str }

func hash(obj []byte) string {
	return gjson.GetBytes(obj, `metadata.annotations.dynapi\.dev/definition-sha256`).Str
}

// write writes a definition file of p's, which p's reloader picks up.
func (p *process) write(file, body string) {
	p.t.Helper()
	path := filepath.Join(p.schemas, file)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// remove removes a definition file of p's.
func (p *process) remove(file string) {
	p.t.Helper()
	if err := os.Remove(filepath.Join(p.schemas, file)); err != nil {
		p.t.Fatal(err)
	}
}

// reloaded waits until p, having picked up a change of its files,
// answers code at path.
func (p *process) reloaded(code int, path string) {
	p.t.Helper()
	wait.Eventually(p.t, 10*time.Second, func() (bool, string) {
		got, body := p.do(http.MethodGet, path, "")
		return got == code, "after a reload, " + path + " answers " + http.StatusText(code) + "; last: " + string(body)
	})
}
