package httpapi_test

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/reload"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// swapper is a Snapshots that tells of its swaps and of its builds, as
// reload.Reloader does.
type swapper struct {
	atomic.Pointer[registry.Snapshot]
	mu       sync.Mutex
	changed  chan struct{}
	problems []registry.Problem
	checks   []reload.SchemaCheck
}

func newSwapper() *swapper { return &swapper{changed: make(chan struct{})} }

func (s *swapper) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *swapper) swap(snap *registry.Snapshot) {
	s.Store(snap)
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *swapper) Problems() []registry.Problem       { return s.problems }
func (s *swapper) SchemaChecks() []reload.SchemaCheck { return s.checks }

// A swap that keeps the watched kind leaves its watches alone; one that
// removes it ends them, and the kind answers 404.
func TestWatchEndsWhenItsKindGoes(t *testing.T) {
	sw := newSwapper()
	s := newTestServerWith(t, sw, sw.Store)
	w := s.watch(widgets + "?watch=true")
	sw.swap(sw.Load())
	s.create(widgets, widget("a", `{}`))
	w.expect("ADDED", "a")

	sw.swap(registry.Empty())
	select {
	case line, open := <-w.lines:
		if open {
			t.Fatalf("event after the kind went: %s", line)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the watch did not end within 2 s")
	}
	wantStatus(t, s.do(http.MethodGet, widgets+"?watch=true", "", ""), http.StatusNotFound, "NotFound")
}

func TestDefinitionsStatus(t *testing.T) {
	sw := newSwapper()
	sw.problems = []registry.Problem{{File: "shop.example.com/broken.yaml", Line: 3, Reason: "invalid YAML: oops"},
		{File: "other.example.com/gizmo.yaml", Reason: "Gizmo.other.example.com: no such kind is loaded", Conversion: true, Warning: true}}
	sw.checks = []reload.SchemaCheck{{Group: "shop.example.com", Resource: "widgets", Objects: 4, Invalid: 1}}
	s := newTestServerWith(t, sw, sw.Store)
	r := s.mustDo(http.StatusOK, http.MethodGet, "/debug/definitions", "", "")
	widget := r.get(`resources.#(group=="shop.example.com")#|#(resource=="widgets")`)
	if widget.Get("file").String() != "shop.example.com/widget.yaml" || widget.Get("group").String() != "shop.example.com" ||
		widget.Get("kind").String() != "Widget" || !widget.Get("versions.#(name==\"v1\").served").Bool() || widget.Get("stale").Exists() {
		t.Errorf("widgets: %s", widget.Raw)
	}
	jsoneq.Assert(t, r.get("problems").Raw, `[{"file":"shop.example.com/broken.yaml","line":3,"reason":"invalid YAML: oops"},
		{"file":"other.example.com/gizmo.yaml","reason":"Gizmo.other.example.com: no such kind is loaded","conversion":true,"warning":true}]`)
	if r.get("schemaChecks.0.invalid").Int() != 1 || r.get("schemaChecks.0.objects").Int() != 4 {
		t.Errorf("schema checks: %s", r.get("schemaChecks").Raw)
	}

	// Without a reloader, the resources are still listed.
	plain := newTestServer(t).mustDo(http.StatusOK, http.MethodGet, "/debug/definitions", "", "")
	if !plain.get(`resources.#(resource=="widgets")`).Exists() || plain.get("problems").Raw != "[]" {
		t.Errorf("without a reloader: %s", plain)
	}
}
