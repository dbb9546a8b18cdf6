package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// owned is a Widget named name whose ownerReferences name each owner
// (a JSON object of apiVersion, kind, name, uid, and more).
func owned(name string, owners ...string) string {
	return `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"` + name +
		`","ownerReferences":[` + strings.Join(owners, ",") + `]},"spec":{"size":1}}`
}

// ref is an ownerReference to a Widget answered by a create.
func ref(r response, block bool) string {
	b := ""
	if block {
		b = `,"blockOwnerDeletion":true`
	}
	return `{"apiVersion":"shop.example.com/v1","kind":"Widget","name":"` + r.get("metadata.name").String() +
		`","uid":"` + r.get("metadata.uid").String() + `"` + b + `}`
}

// gone waits until GET path answers 404.
func (s *testServer) gone(path string) {
	s.t.Helper()
	s.eventually(http.MethodGet, path, func(r response) bool { return r.code == http.StatusNotFound })
}

func TestGarbageCollectionBackground(t *testing.T) {
	s := newTestServer(t)
	a := s.create(widgets, widget("a", `{"size":1}`))
	b := s.create(widgets, owned("b", ref(a, false)))
	s.create(widgets, owned("c", ref(b, false)))
	keep := s.create(widgets, widget("keep", `{"size":1}`))
	s.create(widgets, owned("two-owners", ref(a, false), ref(keep, false)))
	s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/a", "", "")
	s.gone(widgets + "/b")
	s.gone(widgets + "/c") // a chain of three goes a level at a time
	// An owner is left: the dependent stays, without its reference to the
	// owner that went.
	r := s.eventually(http.MethodGet, widgets+"/two-owners", func(r response) bool {
		return r.code == http.StatusOK && r.get("metadata.ownerReferences.#").Int() == 1
	})
	if r.get("metadata.ownerReferences.0.name").String() != "keep" {
		t.Fatalf("two-owners: %s", r)
	}
}

func TestGarbageCollectionForeground(t *testing.T) {
	s := newTestServer(t)
	a := s.create(widgets, widget("a", `{"size":1}`))
	b := s.create(widgets, owned("b", ref(a, true)))
	keep := s.create(widgets, widget("keep", `{"size":1}`))
	s.create(widgets, owned("shared", ref(a, true), ref(keep, false)))
	// c has a finalizer of its own: b, and so a, wait for it.
	c := s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"c","finalizers":["example.com/hold"],
		"ownerReferences":[`+ref(b, true)+`]},"spec":{"size":1}}`)
	r := s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/a", "application/json",
		`{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}`)
	if r.get("metadata.deletionTimestamp").String() == "" || r.get("metadata.finalizers").Raw != `["foregroundDeletion"]` {
		t.Fatalf("foreground delete: %s", r)
	}
	s.eventually(http.MethodGet, widgets+"/c", func(r response) bool { return r.get("metadata.deletionTimestamp").Exists() })
	b2 := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/b", "", "")
	if b2.get("metadata.finalizers.0").String() != "foregroundDeletion" {
		t.Fatalf("b, which has a dependent, goes in foreground too: %s", b2)
	}
	time.Sleep(3 * gcRecheck)
	s.mustDo(http.StatusOK, http.MethodGet, widgets+"/a", "", "") // blocked by b
	s.mustDo(http.StatusOK, http.MethodPatch, widgets+"/c", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	s.gone(widgets + "/c")
	s.gone(widgets + "/b")
	s.gone(widgets + "/a")
	_ = c
	// A dependent with another owner stays, without the reference.
	shared := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/shared", "", "")
	jsoneq.Assert(t, shared.get("metadata.ownerReferences").Raw, `[`+ref(keep, false)+`]`)
}

func TestGarbageCollectionOrphan(t *testing.T) {
	s := newTestServer(t)
	a := s.create(widgets, widget("a", `{"size":1}`))
	keep := s.create(widgets, widget("keep", `{"size":1}`))
	s.create(widgets, owned("b", ref(a, true), ref(keep, false)))
	s.create(widgets, owned("c", ref(a, false)))
	r := s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/a?propagationPolicy=Orphan", "", "")
	if r.get("metadata.finalizers").Raw != `["orphan"]` {
		t.Fatalf("orphan delete: %s", r)
	}
	s.gone(widgets + "/a")
	b := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/b", "", "")
	jsoneq.Assert(t, b.get("metadata.ownerReferences").Raw, `[`+ref(keep, false)+`]`)
	c := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/c", "", "")
	if c.get("metadata.ownerReferences").Exists() {
		t.Fatalf("c still names a: %s", c)
	}
	// orphanDependents=true, the old way, is Orphan; with propagationPolicy, refused.
	s.create(widgets, widget("d", `{"size":1}`))
	wantStatus(t, s.do(http.MethodDelete, widgets+"/d?orphanDependents=true&propagationPolicy=Background", "", ""), http.StatusUnprocessableEntity, "Invalid")
	wantStatus(t, s.do(http.MethodDelete, widgets+"/d?propagationPolicy=Sideways", "", ""), http.StatusUnprocessableEntity, "Invalid")
	if r := s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/d?orphanDependents=true", "", ""); r.get("metadata.finalizers.0").String() != "orphan" {
		t.Fatalf("orphanDependents=true: %s", r)
	}
	s.gone(widgets + "/d")
}

func TestGarbageCollectionAbsentOwners(t *testing.T) {
	s := newTestServer(t)
	const never = `{"apiVersion":"shop.example.com/v1","kind":"Widget","name":"never","uid":"6f1f0a52-3c55-4b8e-9d7e-1e2f3a4b5c6d"}`
	// Owners kube's collector cannot map to a resource keep their
	// dependents: a kind the server does not serve (the v1 Pod Gatekeeper
	// names with --debug-use-fake-pod), a version it does not serve.
	// Created before "orphaned", whose name sorts after theirs, they were
	// seen by the pass that collects it.
	unresolvable := map[string]string{
		"of-pod":     `{"apiVersion":"v1","kind":"Pod","name":"no-pod","uid":"abcd"}`,
		"of-v9":      `{"apiVersion":"shop.example.com/v9","kind":"Widget","name":"never","uid":"6f1f0a52-3c55-4b8e-9d7e-1e2f3a4b5c6d"}`,
		"of-unknown": `{"apiVersion":"shop.example.com/v1","kind":"Gadget","name":"never","uid":"6f1f0a52-3c55-4b8e-9d7e-1e2f3a4b5c6d"}`,
	}
	for name, owner := range unresolvable {
		s.create(widgets, owned(name, owner))
	}
	s.create(widgets, owned("orphaned", never))
	s.gone(widgets + "/orphaned")
	for name := range unresolvable {
		s.mustDo(http.StatusOK, http.MethodGet, widgets+"/"+name, "", "")
	}

	// An owner in another version of another kind: references are by uid.
	const pipes = "/apis/plumbing.example.com/v3/namespaces/default/pipes"
	p := s.create(pipes, `{"apiVersion":"plumbing.example.com/v3","kind":"Pipe","metadata":{"name":"p"},"spec":{"material":"Steel","dimensions":{"diameter":10}}}`)
	s.create(widgets, owned("of-pipe", `{"apiVersion":"plumbing.example.com/v1","kind":"Pipe","name":"p","uid":"`+p.get("metadata.uid").String()+`"}`))
	time.Sleep(3 * gcRecheck)
	s.mustDo(http.StatusOK, http.MethodGet, widgets+"/of-pipe", "", "")
	s.mustDo(http.StatusOK, http.MethodDelete, "/apis/plumbing.example.com/v2/namespaces/default/pipes/p", "", "")
	s.gone(widgets + "/of-pipe")

	// A cluster-scoped dependent cannot have a namespaced owner: kube's
	// collector never resolves it, and never collects the dependent.
	const warehouses = "/apis/shop.example.com/v1/warehouses"
	s.create(warehouses, `{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"wh","ownerReferences":[`+never+`]},"spec":{"location":"x"}}`)
	// A namespaced dependent of an owner in another namespace: absent.
	s.mustDo(http.StatusCreated, http.MethodPost, "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}`)
	o := s.create("/apis/shop.example.com/v1/namespaces/other/widgets", widget("o", `{"size":1}`))
	s.create(widgets, owned("cross", ref(o, false)))
	s.gone(widgets + "/cross")
	time.Sleep(3 * gcRecheck)
	s.mustDo(http.StatusOK, http.MethodGet, warehouses+"/wh", "", "")
}
