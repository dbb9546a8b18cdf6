package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// acceptAggregated is what client-go's discovery client sends.
const acceptAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

func TestAggregatedDiscovery(t *testing.T) {
	s := newTestServer(t)
	apis := s.mustDo(http.StatusOK, http.MethodGet, "/apis", "", "", "Accept", acceptAggregated)
	if apis.get("kind").String() != "APIGroupDiscoveryList" || apis.get("apiVersion").String() != "apidiscovery.k8s.io/v2" ||
		apis.header.Get("Content-Type") != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" ||
		apis.header.Get("ETag") == "" || apis.header.Get("Vary") != "Accept" {
		t.Fatalf("/apis: %v %s", apis.header, apis)
	}
	shop := apis.get(`items.#(metadata.name=="shop.example.com")`)
	jsoneq.Assert(t, shop.Get("versions.#.version").Raw, `["v1","v1beta1"]`)
	jsoneq.Assert(t, shop.Get(`versions.0.resources.#(resource=="widgets")`).Raw, `{"resource":"widgets",
		"responseKind":{"group":"shop.example.com","version":"v1","kind":"Widget"},"scope":"Namespaced","singularResource":"widget",
		"verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["wg"],"categories":["all"],
		"subresources":[{"subresource":"status","responseKind":{"group":"shop.example.com","version":"v1","kind":"Widget"},"verbs":["get","patch","update"]}]}`)
	if shop.Get("versions.0.freshness").String() != "Current" {
		t.Errorf("freshness: %s", shop.Raw)
	}
	// The same document again: 304 for the ETag the client holds.
	r := s.do(http.MethodGet, "/apis", "", "", "Accept", acceptAggregated, "If-None-Match", apis.header.Get("ETag"))
	if r.code != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d", r.code)
	}

	core := s.mustDo(http.StatusOK, http.MethodGet, "/api", "", "", "Accept", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")
	ns := core.get(`items.0.versions.0.resources.#(resource=="namespaces")`)
	if core.get("apiVersion").String() != "apidiscovery.k8s.io/v2beta1" || core.get("items.#").Int() != 1 ||
		ns.Get("scope").String() != "Cluster" || ns.Get("subresources.#(subresource==\"finalize\").verbs.0").String() != "update" {
		t.Fatalf("/api v2beta1: %s", core)
	}

	// Without it, the unaggregated documents; with nothing dynapi has, 406.
	if r := s.mustDo(http.StatusOK, http.MethodGet, "/apis", "", "", "Accept", "application/json"); r.get("kind").String() != "APIGroupList" {
		t.Fatalf("plain /apis: %s", r)
	}
	wantStatus(t, s.do(http.MethodGet, "/apis", "", "", "Accept", "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList"),
		http.StatusNotAcceptable, "NotAcceptable")
}

func TestDiscoveryTrailingSlash(t *testing.T) {
	s := newTestServer(t)
	for path, kind := range map[string]string{"/api/": "APIVersions", "/apis/": "APIGroupList",
		"/apis/shop.example.com/": "APIGroup", "/apis/shop.example.com/v1/": "APIResourceList", "/api/v1/": "APIResourceList"} {
		if r := s.mustDo(http.StatusOK, http.MethodGet, path, "", ""); r.get("kind").String() != kind {
			t.Errorf("%s: %s", path, r)
		}
	}
}
