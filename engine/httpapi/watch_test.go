package httpapi_test

import (
	"bufio"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine/httpapi"
)

// watchStream reads the events of one watch.
type watchStream struct {
	t      *testing.T
	lines  chan string
	cancel context.CancelFunc
}

// watch starts a watch; header holds name, value pairs to send.
func (s *testServer) watch(path string, header ...string) *watchStream {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		s.t.Fatalf("watch %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		s.t.Fatalf("watch %s: %d", path, resp.StatusCode)
	}
	w := &watchStream{t: s.t, lines: make(chan string, 100), cancel: cancel}
	go func() {
		defer resp.Body.Close()
		defer close(w.lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
	}()
	s.t.Cleanup(cancel)
	return w
}

// next returns the next event, failing the test after a few seconds.
func (w *watchStream) next() gjson.Result {
	w.t.Helper()
	select {
	case line, ok := <-w.lines:
		if !ok {
			w.t.Fatal("watch ended")
		}
		return gjson.Parse(line)
	case <-time.After(5 * time.Second):
		w.t.Fatal("no watch event within 5s")
	}
	return gjson.Result{}
}

// expect checks the next event's type and object name.
func (w *watchStream) expect(typ, name string) gjson.Result {
	w.t.Helper()
	ev := w.next()
	if ev.Get("type").String() != typ || ev.Get("object.metadata.name").String() != name {
		w.t.Fatalf("event = %s, want %s %s", ev.Raw, typ, name)
	}
	return ev
}

// quiet checks that no event arrives for a short while.
func (w *watchStream) quiet() {
	w.t.Helper()
	select {
	case line := <-w.lines:
		w.t.Fatalf("unexpected event: %s", line)
	case <-time.After(300 * time.Millisecond):
	}
}

func TestWatchFromNow(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("before", `{}`))
	w := s.watch(widgets + "?watch=true")
	w.expect("ADDED", "before")
	created := s.create(widgets, widget("w", `{"size":1}`))
	ev := w.expect("ADDED", "w")
	if ev.Get("object.metadata.resourceVersion").String() != created.get("metadata.resourceVersion").String() {
		t.Fatalf("event resourceVersion differs from the create's: %s", ev.Raw)
	}
	s.mustDo(http.StatusOK, http.MethodPatch, widgets+"/w", "application/merge-patch+json", `{"spec":{"size":2}}`)
	if ev := w.expect("MODIFIED", "w"); ev.Get("object.spec.size").Int() != 2 {
		t.Fatalf("modified event: %s", ev.Raw)
	}
	s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/w", "", "")
	w.expect("DELETED", "w")
	s.create("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}`)
	s.create("/apis/shop.example.com/v1/namespaces/other/widgets", widget("elsewhere", `{}`))
	w.quiet()
}

func TestWatchFromResourceVersion(t *testing.T) {
	s := newTestServer(t)
	first := s.create(widgets, widget("a", `{}`))
	s.create(widgets, widget("b", `{}`))
	w := s.watch(widgets + "?watch=1&resourceVersion=" + first.get("metadata.resourceVersion").String())
	w.expect("ADDED", "b")
	w.quiet()
}

func TestWatchSelectorTransitions(t *testing.T) {
	s := newTestServer(t)
	w := s.watch(widgets + "?watch=true&labelSelector=team%3Dblue")
	s.create(widgets, widget("x", `{}`))
	s.mustDo(http.StatusOK, http.MethodPatch, widgets+"/x", "application/merge-patch+json", `{"metadata":{"labels":{"team":"blue"}}}`)
	w.expect("ADDED", "x")
	s.mustDo(http.StatusOK, http.MethodPatch, widgets+"/x", "application/merge-patch+json", `{"spec":{"size":4}}`)
	w.expect("MODIFIED", "x")
	s.mustDo(http.StatusOK, http.MethodPatch, widgets+"/x", "application/merge-patch+json", `{"metadata":{"labels":{"team":"red"}}}`)
	ev := w.expect("DELETED", "x")
	if ev.Get("object.metadata.labels.team").String() != "blue" {
		t.Fatalf("DELETED for a selector change should carry the last matching state: %s", ev.Raw)
	}
	w.quiet()
}

func TestWatchOneObjectInAnotherVersion(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("one", `{}`))
	s.create(widgets, widget("two", `{}`))
	w := s.watch("/apis/shop.example.com/v1beta1/namespaces/default/widgets?watch=true&fieldSelector=metadata.name%3Dtwo")
	ev := w.expect("ADDED", "two")
	if ev.Get("object.apiVersion").String() != "shop.example.com/v1beta1" {
		t.Fatalf("event not in the watched version: %s", ev.Raw)
	}
	s.mustDo(http.StatusOK, http.MethodPatch, widgets+"/one", "application/merge-patch+json", `{"spec":{"size":4}}`)
	s.mustDo(http.StatusOK, http.MethodPatch, widgets+"/two", "application/merge-patch+json", `{"spec":{"size":4}}`)
	w.expect("MODIFIED", "two")
}

func TestWatchListAndBookmarks(t *testing.T) {
	s := newTestServerOptions(t, httpapi.Options{BookmarkInterval: 100 * time.Millisecond})
	s.create(widgets, widget("init", `{}`))
	w := s.watch(widgets + "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	w.expect("ADDED", "init")
	end := w.next()
	if end.Get("type").String() != "BOOKMARK" || end.Get(`object.metadata.annotations.k8s\.io/initial-events-end`).String() != "true" ||
		end.Get("object.kind").String() != "Widget" {
		t.Fatalf("initial-events-end bookmark: %s", end.Raw)
	}
	s.create(widgets, widget("later", `{}`))
	for {
		ev := w.next()
		if ev.Get("type").String() == "ADDED" && ev.Get("object.metadata.name").String() == "later" {
			break
		}
		if ev.Get("type").String() != "BOOKMARK" {
			t.Fatalf("unexpected event: %s", ev.Raw)
		}
	}
	bm := w.next()
	if bm.Get("type").String() != "BOOKMARK" || bm.Get("object.metadata.resourceVersion").Int() <= end.Get("object.metadata.resourceVersion").Int() {
		t.Fatalf("periodic bookmark: %s", bm.Raw)
	}
}

func TestWatchTimeoutAndErrors(t *testing.T) {
	s := newTestServer(t)
	w := s.watch(widgets + "?watch=true&timeoutSeconds=1")
	select {
	case _, ok := <-w.lines:
		if ok {
			t.Fatal("event on an empty collection")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("timeoutSeconds=1 did not end the watch")
	}
	wantStatus(t, s.do(http.MethodGet, widgets+"?watch=true&resourceVersion=abc", "", ""), http.StatusBadRequest, "BadRequest")
	wantStatus(t, s.do(http.MethodGet, widgets+"?watch=true&sendInitialEvents=true", "", ""), http.StatusUnprocessableEntity, "Invalid")
	// (watch=maybe is a watch, as in kube: see TestWatchIsDecidedOnce.)
	wantStatus(t, s.do(http.MethodGet, widgets+"?watch=true&timeoutSeconds=soon", "", ""), http.StatusBadRequest, "BadRequest")
	wantStatus(t, s.do(http.MethodGet, widgets+"?watch=true&fieldSelector=spec.size%3D1", "", ""), http.StatusBadRequest, "BadRequest")
}

func TestSelectableFields(t *testing.T) {
	s := newTestServer(t)
	for _, c := range []string{"red", "blue", "red"} {
		body, _ := sjson.Set(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"generateName":"c-"}}`, "spec.color", c)
		s.create(widgets, body)
	}
	r := s.mustDo(http.StatusOK, http.MethodGet, widgets+"?fieldSelector=spec.color%3Dred", "", "")
	if n := len(r.get("items").Array()); n != 2 {
		t.Fatalf("spec.color=red matched %d: %s", n, r)
	}
	r = s.mustDo(http.StatusOK, http.MethodGet, widgets+"?fieldSelector=spec.color!%3Dred", "", "")
	if n := len(r.get("items").Array()); n != 1 {
		t.Fatalf("spec.color!=red matched %d", n)
	}
	wantStatus(t, s.do(http.MethodGet, widgets+"?fieldSelector=spec.size%3D1", "", ""), http.StatusBadRequest, "BadRequest")
}

func TestWatchTables(t *testing.T) {
	s := newTestServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+widgets+"?watch=true", nil)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json;as=Table;v=v1;g=meta.k8s.io" {
		t.Fatalf("Content-Type = %q", ct)
	}
	s.create(widgets, widget("tw", `{"size":5}`))
	sc := bufio.NewScanner(resp.Body)
	if !sc.Scan() {
		t.Fatal("no event")
	}
	ev := gjson.Parse(sc.Text())
	if ev.Get("type").String() != "ADDED" || ev.Get("object.kind").String() != "Table" || ev.Get("object.rows.0.cells.0").String() != "tw" {
		t.Fatalf("table watch event: %s", sc.Text())
	}
}
