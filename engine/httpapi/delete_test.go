package httpapi_test

import (
	"net/http"
	"testing"
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
	r := s.mustDo(http.StatusAccepted, http.MethodDelete, widgets+"/f", "", "")
	if !r.get("metadata.deletionTimestamp").Exists() || r.get("metadata.generation").Int() != 2 {
		t.Fatalf("delete with finalizers: %s", r)
	}
	got := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/f", "", "")
	if got.get("metadata.deletionTimestamp").String() != r.get("metadata.deletionTimestamp").String() {
		t.Fatalf("deletionTimestamp not stored: %s", got)
	}
	again := s.mustDo(http.StatusAccepted, http.MethodDelete, widgets+"/f", "", "")
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
	jsonEqual(t, []byte(r.get("items.#.metadata.name").Raw), `["a","b"]`)
	left := s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "")
	jsonEqual(t, []byte(left.get("items.#.metadata.name").Raw), `["c"]`)
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

	s.mustDo(http.StatusOK, http.MethodDelete, "/api/v1/namespaces/team", "", "")
	wantStatus(t, s.do(http.MethodGet, "/api/v1/namespaces/team", "", ""), http.StatusNotFound, "NotFound")
	wantStatus(t, s.do(http.MethodGet, teamWidgets+"/w", "", ""), http.StatusNotFound, "NotFound")
	held := s.mustDo(http.StatusOK, http.MethodGet, teamWidgets+"/held", "", "")
	if !held.get("metadata.deletionTimestamp").Exists() {
		t.Fatalf("object with finalizers in a deleted namespace not marked: %s", held)
	}
	s.mustDo(http.StatusOK, http.MethodGet, widgets+"/elsewhere", "", "")

	r := s.do(http.MethodDelete, "/api/v1/namespaces/default", "", "")
	wantStatus(t, r, http.StatusForbidden, "Forbidden")
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
	jsonEqual(t, []byte(list.get("items.#.metadata.name").Raw), `["north"]`)
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
