package httpapi_test

import (
	"fmt"
	"net/http"
	"runtime"
	"testing"

	"github.com/dynapi/dynapi/engine/buildinfo"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestDiscovery(t *testing.T) {
	s := newTestServer(t)
	api := s.mustDo(http.StatusOK, http.MethodGet, "/api", "", "")
	if api.get("kind").String() != "APIVersions" || api.get("versions").Raw != `["v1"]` {
		t.Fatalf("/api: %s", api)
	}

	core := s.mustDo(http.StatusOK, http.MethodGet, "/api/v1", "", "")
	ns := core.get(`resources.#(name=="namespaces")`)
	if core.get("groupVersion").String() != "v1" || ns.Get("kind").String() != "Namespace" || ns.Get("namespaced").Bool() ||
		ns.Get("shortNames").Raw != `["ns"]` || ns.Get("singularName").String() != "namespace" {
		t.Fatalf("/api/v1: %s", core)
	}
	// As kube-apiserver: namespaces are not deleted by collection.
	jsoneq.Assert(t, ns.Get("verbs").Raw, `["create","delete","get","list","patch","update","watch"]`)

	groups := s.mustDo(http.StatusOK, http.MethodGet, "/apis", "", "")
	if groups.get("kind").String() != "APIGroupList" || groups.get(`groups.#(name=="")`).Exists() {
		t.Fatalf("/apis: %s", groups)
	}
	jsoneq.Assert(t, groups.get("groups.#.name").Raw, `["admissionregistration.k8s.io","apiextensions.k8s.io","apiregistration.k8s.io","authentication.k8s.io","authorization.k8s.io",
		"coordination.k8s.io","dynapi.dev","events.k8s.io","labs.example.com","plumbing.example.com","rbac.authorization.k8s.io","shop.example.com",
		"storagemigration.k8s.io"]`)

	shop := s.mustDo(http.StatusOK, http.MethodGet, "/apis/shop.example.com", "", "")
	jsoneq.Assert(t, shop.body, `{"kind":"APIGroup","apiVersion":"v1","name":"shop.example.com",
		"versions":[{"groupVersion":"shop.example.com/v1","version":"v1"},{"groupVersion":"shop.example.com/v1beta1","version":"v1beta1"}],
		"preferredVersion":{"groupVersion":"shop.example.com/v1","version":"v1"}}`)

	list := s.mustDo(http.StatusOK, http.MethodGet, "/apis/shop.example.com/v1", "", "")
	jsoneq.Assert(t, list.get(`resources.#(name=="widgets")`).Raw, `{"name":"widgets","singularName":"widget","namespaced":true,
		"kind":"Widget","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["wg"],"categories":["all"],
		"storageVersionHash":"1eOuwF5L+ZU="}`) // base64(sha256("shop.example.com/v1/Widget")[:8]), as kube-apiserver computes it
	jsoneq.Assert(t, list.get(`resources.#(name=="widgets/status")`).Raw, `{"name":"widgets/status","singularName":"","namespaced":true,
		"kind":"Widget","verbs":["get","patch","update"]}`)
	if wh := list.get(`resources.#(name=="warehouses")`); wh.Get("namespaced").Bool() {
		t.Fatalf("warehouses namespaced: %s", wh.Raw)
	}
}

func TestVersion(t *testing.T) {
	s := newTestServer(t)
	r := s.mustDo(http.StatusOK, http.MethodGet, "/version", "", "")
	// The built-in definitions are v1.37.0's; a test binary has no VCS stamp.
	jsoneq.Assert(t, r.get("@this").Raw, fmt.Sprintf(`{"major":"1","minor":"37","emulationMajor":"1","emulationMinor":"37",
		"gitVersion":"v1.37.0+dynapi","gitCommit":"","gitTreeState":"","buildDate":"","goVersion":%q,"compiler":%q,"platform":%q,
		"dynapiVersion":%q}`, runtime.Version(), runtime.Compiler, runtime.GOOS+"/"+runtime.GOARCH, buildinfo.Read().Dynapi()))
}

func TestVersionsShareObjects(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("shared", `{"size":5}`))
	r := s.mustDo(http.StatusOK, http.MethodGet, "/apis/shop.example.com/v1beta1/namespaces/default/widgets/shared", "", "")
	if r.get("apiVersion").String() != "shop.example.com/v1beta1" || r.get("spec.size").Int() != 5 {
		t.Fatalf("v1beta1 read: %s", r)
	}
}

func TestHealth(t *testing.T) {
	s := newTestServer(t)
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		if r := s.mustDo(http.StatusOK, http.MethodGet, p, "", ""); r.String() != "ok" {
			t.Errorf("%s: %s", p, r)
		}
	}
	if r := s.mustDo(http.StatusOK, http.MethodGet, "/readyz?verbose", "", ""); r.String() != "[+]ping ok\n[+]storage ok\nreadyz check passed\n" {
		t.Errorf("/readyz?verbose: %q", r)
	}
	if r := s.mustDo(http.StatusOK, http.MethodGet, "/healthz?verbose", "", ""); r.String() != "[+]ping ok\nhealthz check passed\n" {
		t.Errorf("/healthz?verbose: %q", r)
	}
	s.store.Close()
	r := s.do(http.MethodGet, "/readyz", "", "")
	if r.code != http.StatusServiceUnavailable || r.String() != "[+]ping ok\n[-]storage failed: reason withheld\nreadyz check failed\n" {
		t.Fatalf("/readyz with the database closed: %d %q", r.code, r)
	}
	if r := s.mustDo(http.StatusOK, http.MethodGet, "/livez", "", ""); r.String() != "ok" {
		t.Fatalf("/livez: %s", r)
	}
}

func TestDeprecationWarning(t *testing.T) {
	s := newTestServer(t)
	want := `299 - "shop.example.com/v1beta1 Widget is deprecated; use shop.example.com/v1 Widget"`
	for _, r := range []response{
		s.do(http.MethodGet, "/apis/shop.example.com/v1beta1/namespaces/default/widgets", "", ""),
		s.do(http.MethodGet, "/apis/shop.example.com/v1beta1/namespaces/default/widgets/missing", "", ""),
		s.do(http.MethodPost, "/apis/shop.example.com/v1beta1/namespaces/default/widgets", "application/json",
			`{"apiVersion":"shop.example.com/v1beta1","kind":"Widget","metadata":{"name":"old"}}`),
	} {
		if got := r.header.Values("Warning"); len(got) != 1 || got[0] != want {
			t.Errorf("Warning = %q, want %q", got, want)
		}
	}
	if got := s.do(http.MethodGet, widgets, "", "").header.Get("Warning"); got != "" {
		t.Errorf("Warning on a current version: %q", got)
	}
}
