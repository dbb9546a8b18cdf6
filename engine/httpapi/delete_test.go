package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestDelete(t *testing.T) {
	s := newTestServer(t)
	created := s.create(widgets, widget("d", `{}`))
	r := s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/d", "", "")
	if r.get("metadata.uid").String() != created.get("metadata.uid").String() {
		t.Fatalf("delete answer is not the deleted object: %s", r)
	}
	wantStatus(t, s.do(http.MethodGet, widgets+"/d", "", ""), http.StatusNotFound, "NotFound")
	wantStatus(t, s.do(http.MethodDelete, widgets+"/d", "", ""), http.StatusNotFound, "NotFound")
}

func TestDeletePreconditions(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("pre", `{}`))
	r := s.do(http.MethodDelete, widgets+"/pre", "application/json", `{"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}`)
	wantStatus(t, r, http.StatusConflict, "Conflict")
	r = s.do(http.MethodDelete, widgets+"/pre", "application/json", `{"preconditions":{"resourceVersion":"1"}}`)
	wantStatus(t, r, http.StatusConflict, "Conflict")
	s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/pre?dryRun=All", "", "")
	s.mustDo(http.StatusOK, http.MethodGet, widgets+"/pre", "", "")
}

func TestFinalizers(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"f","finalizers":["example.com/cleanup"]},"spec":{}}`)
	r := s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/f", "", "")
	if !r.get("metadata.deletionTimestamp").Exists() || r.get("metadata.generation").Int() != 2 {
		t.Fatalf("delete with finalizers: %s", r)
	}
	got := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/f", "", "")
	if got.get("metadata.deletionTimestamp").String() != r.get("metadata.deletionTimestamp").String() {
		t.Fatalf("deletionTimestamp not stored: %s", got)
	}
	again := s.mustDo(http.StatusAccepted, http.MethodDelete, widgets+"/f?orphanDependents=false", "", "")
	if again.get("metadata.resourceVersion").String() != got.get("metadata.resourceVersion").String() {
		t.Fatalf("second delete rewrote the object")
	}
	added := s.do(http.MethodPatch, widgets+"/f", "application/merge-patch+json", `{"metadata":{"finalizers":["example.com/cleanup","example.com/more"]}}`)
	wantStatus(t, added, http.StatusUnprocessableEntity, "Invalid")
	s.mustDo(http.StatusOK, http.MethodPatch, widgets+"/f", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	wantStatus(t, s.do(http.MethodGet, widgets+"/f", "", ""), http.StatusNotFound, "NotFound")
}

func TestDeleteCollection(t *testing.T) {
	s := newTestServer(t)
	for _, n := range []string{"a", "b", "c"} {
		labels := `{"keep":"no"}`
		if n == "c" {
			labels = `{"keep":"yes"}`
		}
		s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"`+n+`","labels":`+labels+`},"spec":{}}`)
	}
	r := s.mustDo(http.StatusOK, http.MethodDelete, widgets+"?labelSelector=keep%3Dno", "", "")
	jsoneq.Assert(t, r.get("items.#.metadata.name").Raw, `["a","b"]`)
	left := s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "")
	jsoneq.Assert(t, left.get("items.#.metadata.name").Raw, `["c"]`)
}

func TestNamespaces(t *testing.T) {
	s := newTestServer(t)
	ns := s.create("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`)
	if ns.get("status.phase").String() != "Active" || ns.get(`metadata.labels.kubernetes\.io/metadata\.name`).String() != "team" {
		t.Fatalf("namespace: %s", ns)
	}
	teamWidgets := "/apis/shop.example.com/v1/namespaces/team/widgets"
	s.create(teamWidgets, widget("w", `{}`))
	s.create(teamWidgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"held","finalizers":["example.com/x"]},"spec":{}}`)
	s.create(widgets, widget("elsewhere", `{}`))

	wantStatus(t, s.do(http.MethodPost, "/apis/shop.example.com/v1/namespaces/nowhere/widgets", "application/json", widget("x", `{}`)), http.StatusNotFound, "NotFound")
	wantStatus(t, s.do(http.MethodPost, "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"Bad_Name"}}`), http.StatusUnprocessableEntity, "Invalid")

	// Deleting a namespace marks it and empties it in the background; the
	// object with a finalizer keeps it until the finalizer goes.
	marked := s.mustDo(http.StatusOK, http.MethodDelete, "/api/v1/namespaces/team", "", "")
	if marked.get("status.phase").String() != "Terminating" || !marked.get("metadata.deletionTimestamp").Exists() {
		t.Fatalf("deleted namespace: %s", marked)
	}
	s.eventually(http.MethodGet, teamWidgets+"/held", func(r response) bool {
		return r.get("metadata.deletionTimestamp").Exists()
	})
	s.eventually(http.MethodGet, teamWidgets+"/w", func(r response) bool { return r.code == http.StatusNotFound })
	// It says what it waits for, as Kubernetes' namespace controller does.
	s.eventually(http.MethodGet, "/api/v1/namespaces/team", func(r response) bool {
		return r.get("status.phase").String() == "Terminating" &&
			r.get(`status.conditions.#(type=="NamespaceContentRemaining").message`).String() ==
				"Some resources are remaining: widgets.shop.example.com has 1 resource instances" &&
			r.get(`status.conditions.#(type=="NamespaceFinalizersRemaining").message`).String() ==
				"Some content in the namespace has finalizers remaining: example.com/x in 1 resource instances"
	})
	again := s.mustDo(http.StatusOK, http.MethodDelete, "/api/v1/namespaces/team", "", "")
	if again.get("metadata.deletionTimestamp").String() != marked.get("metadata.deletionTimestamp").String() {
		t.Errorf("second delete marked the namespace again: %s", again)
	}
	// Selected by phase, as kube-apiserver selects namespaces.
	terminating := s.mustDo(http.StatusOK, http.MethodGet, "/api/v1/namespaces?fieldSelector=status.phase%3DTerminating", "", "")
	jsoneq.Assert(t, terminating.get("items.#.metadata.name").Raw, `["team"]`)
	active := s.mustDo(http.StatusOK, http.MethodGet, "/api/v1/namespaces?fieldSelector=status.phase%3DActive", "", "")
	jsoneq.Assert(t, active.get("items.#.metadata.name").Raw, `["default","kube-node-lease","kube-public","kube-system"]`)
	refused := s.do(http.MethodPost, teamWidgets, "application/json", widget("late", `{}`))
	wantStatus(t, refused, http.StatusForbidden, "Forbidden")
	if refused.get("details.causes.0.reason").String() != "NamespaceTerminating" || refused.get("details.causes.0.field").String() != "metadata.namespace" {
		t.Errorf("create in a terminating namespace: %s", refused)
	}
	s.mustDo(http.StatusOK, http.MethodPatch, teamWidgets+"/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	s.eventually(http.MethodGet, "/api/v1/namespaces/team", func(r response) bool { return r.code == http.StatusNotFound })
	wantStatus(t, s.do(http.MethodGet, teamWidgets+"/held", "", ""), http.StatusNotFound, "NotFound")
	s.mustDo(http.StatusOK, http.MethodGet, widgets+"/elsewhere", "", "")

	r := s.do(http.MethodDelete, "/api/v1/namespaces/default", "", "")
	wantStatus(t, r, http.StatusForbidden, "Forbidden")

	// One request may not delete every namespace, as in kube-apiserver.
	s.create("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kept"}}`)
	wantStatus(t, s.do(http.MethodDelete, "/api/v1/namespaces", "", ""), http.StatusMethodNotAllowed, "MethodNotAllowed")
	if kept := s.mustDo(http.StatusOK, http.MethodGet, "/api/v1/namespaces/kept", "", ""); kept.get("status.phase").String() != "Active" {
		t.Errorf("namespace after a refused collection delete: %s", kept)
	}
}

// TestNamespaceWithFinalizers: a namespace's own finalizers keep it, and
// removing them does not delete it while content remains.
func TestNamespaceWithFinalizers(t *testing.T) {
	s := newTestServer(t)
	const ns = "/api/v1/namespaces/kept"
	s.create("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kept","finalizers":["example.com/ns"]}}`)
	keptWidgets := "/apis/shop.example.com/v1/namespaces/kept/widgets"
	s.create(keptWidgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"held","finalizers":["example.com/x"]},"spec":{}}`)
	s.mustDo(http.StatusOK, http.MethodDelete, ns, "", "")
	s.eventually(http.MethodGet, keptWidgets+"/held", func(r response) bool { return r.get("metadata.deletionTimestamp").Exists() })

	s.mustDo(http.StatusOK, http.MethodPatch, ns, "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	if got := s.mustDo(http.StatusOK, http.MethodGet, ns, "", ""); got.get("status.phase").String() != "Terminating" {
		t.Fatalf("namespace with content left: %s", got)
	}
	s.mustDo(http.StatusOK, http.MethodPatch, keptWidgets+"/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	s.eventually(http.MethodGet, ns, func(r response) bool { return r.code == http.StatusNotFound })
}

// TestNamespaceFinalize: a namespace has the kubernetes finalizer in
// spec.finalizers, which only its finalize subresource changes; emptying
// it with finalizers left in the namespace deletes it at once, as in
// Kubernetes (the way out for a namespace stuck on a finalizer).
func TestNamespaceFinalize(t *testing.T) {
	s := newTestServer(t)
	const ns = "/api/v1/namespaces/stuck"
	created := s.create("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"},"spec":{"finalizers":["example.com/mine"]}}`)
	jsoneq.Assert(t, created.get("spec.finalizers").Raw, `["example.com/mine","kubernetes"]`)
	for _, spec := range []string{`"x"`, `{"finalizers":"x"}`} { // reported as sent, not after adding the finalizer
		r := s.do(http.MethodPost, "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bad"},"spec":`+spec+`}`)
		wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid")
		if !strings.Contains(r.get("message").String(), `Invalid value: "string"`) {
			t.Errorf("spec %s: %s", spec, r)
		}
	}
	patched := s.mustDo(http.StatusOK, http.MethodPatch, ns, "application/merge-patch+json", `{"spec":{"finalizers":[]}}`)
	jsoneq.Assert(t, patched.get("spec.finalizers").Raw, `["example.com/mine","kubernetes"]`)

	stuckWidgets := "/apis/shop.example.com/v1/namespaces/stuck/widgets"
	s.create(stuckWidgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"held","finalizers":["example.com/x"]},"spec":{}}`)
	s.mustDo(http.StatusOK, http.MethodDelete, ns, "", "")
	s.eventually(http.MethodGet, stuckWidgets+"/held", func(r response) bool { return r.get("metadata.deletionTimestamp").Exists() })

	// With the resourceVersion just read, again on a conflict, as clients
	// do: the namespace finalizer updates the namespace's status meanwhile.
	finalize := func(finalizers string) (r response) {
		for range 5 {
			cur := s.mustDo(http.StatusOK, http.MethodGet, ns, "", "")
			body := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck","resourceVersion":"` +
				cur.get("metadata.resourceVersion").String() + `"},"spec":{"finalizers":` + finalizers + `}}`
			if r = s.do(http.MethodPut, ns+"/finalize", "application/json", body); r.code != http.StatusConflict {
				return r
			}
		}
		return r
	}
	if r := finalize(`["kubernetes"]`); r.code != http.StatusOK || r.get("spec.finalizers").Raw != `["kubernetes"]` {
		t.Fatalf("finalize: %d %s", r.code, r)
	}
	// Still holding the widget, so still there with the kubernetes finalizer.
	s.mustDo(http.StatusOK, http.MethodGet, ns, "", "")
	// Without a resourceVersion: unconditional, as Kubernetes allows for namespaces.
	unconditional := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"},"spec":{"finalizers":[]}}`
	if r := s.do(http.MethodPut, ns+"/finalize", "application/json", unconditional); r.code != http.StatusOK {
		t.Fatalf("finalize to none: %d %s", r.code, r)
	}
	wantStatus(t, s.do(http.MethodGet, ns, "", ""), http.StatusNotFound, "NotFound")

	wantStatus(t, s.do(http.MethodPatch, "/api/v1/namespaces/default/finalize", "application/merge-patch+json", `{}`), http.StatusMethodNotAllowed, "MethodNotAllowed")
	wantStatus(t, s.do(http.MethodPut, "/apis/shop.example.com/v1/warehouses/x/finalize", "application/json", `{}`), http.StatusNotFound, "NotFound")
	discovery := s.mustDo(http.StatusOK, http.MethodGet, "/api/v1", "", "")
	jsoneq.Assert(t, discovery.get(`resources.#(name=="namespaces/finalize").verbs`).Raw, `["update"]`)
}

func TestClusterScoped(t *testing.T) {
	s := newTestServer(t)
	const warehouses = "/apis/shop.example.com/v1/warehouses"
	r := s.create(warehouses, `{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"north","namespace":"ignored"},"spec":{"location":"Oslo"}}`)
	if r.get("metadata.namespace").Exists() {
		t.Fatalf("cluster-scoped object got a namespace: %s", r)
	}
	s.mustDo(http.StatusOK, http.MethodGet, warehouses+"/north", "", "")
	list := s.mustDo(http.StatusOK, http.MethodGet, warehouses, "", "")
	jsoneq.Assert(t, list.get("items.#.metadata.name").Raw, `["north"]`)
	wantStatus(t, s.do(http.MethodGet, "/apis/shop.example.com/v1/namespaces/default/warehouses", "", ""), http.StatusNotFound, "NotFound")
	s.mustDo(http.StatusOK, http.MethodDelete, warehouses+"/north", "", "")
}

func TestSameKindInTwoGroups(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("same", `{}`))
	labs := "/apis/labs.example.com/v1alpha1/namespaces/default/widgets"
	r := s.create(labs, `{"apiVersion":"labs.example.com/v1alpha1","kind":"Widget","metadata":{"name":"same"},"spec":{"port":"http","color":null,"config":{"any":{"thing":1}}}}`)
	if r.get("spec.config.any.thing").Int() != 1 || r.get("spec.port").String() != "http" {
		t.Fatalf("labs widget: %s", r)
	}
	s.mustDo(http.StatusOK, http.MethodDelete, labs+"/same", "", "")
	s.mustDo(http.StatusOK, http.MethodGet, widgets+"/same", "", "")
}
