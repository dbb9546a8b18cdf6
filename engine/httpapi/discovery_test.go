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

// TestHealth: the health endpoints list their named checks as
// kube-apiserver does (ping, the database, the definitions loaded, each
// background controller started), /livez leaves the database out, each
// check answers alone at /readyz/<name>, ?exclude leaves one out (and
// warns of a name no check has), and a failed check is a 500 with kube's
// body (healthz.handleRootHealth).
func TestHealth(t *testing.T) {
	s := newTestServer(t)
	const controllers = "[+]definitions ok\n[+]poststarthook/field-indexes ok\n[+]poststarthook/namespace-controller ok\n[+]poststarthook/namespace-contents ok\n[+]poststarthook/storage-version-migrator ok\n[+]poststarthook/validatingadmissionpolicy-status ok\n[+]poststarthook/garbage-collector ok\n"
	tests := []struct {
		path string
		code int
		want string
	}{
		{"/healthz", 200, "ok"},
		{"/livez", 200, "ok"},
		{"/readyz", 200, "ok"},
		{"/readyz?verbose", 200, "[+]ping ok\n[+]database ok\n" + controllers + "readyz check passed\n"},
		{"/healthz?verbose=1", 200, "[+]ping ok\n[+]database ok\n" + controllers + "healthz check passed\n"},
		{"/livez?verbose", 200, "[+]ping ok\n[+]poststarthook/field-indexes ok\n[+]poststarthook/namespace-controller ok\n[+]poststarthook/namespace-contents ok\n[+]poststarthook/storage-version-migrator ok\n[+]poststarthook/validatingadmissionpolicy-status ok\n[+]poststarthook/garbage-collector ok\nlivez check passed\n"},
		{"/readyz?verbose&exclude=database", 200, "[+]ping ok\n[+]database excluded: ok\n" + controllers + "readyz check passed\n"},
		{"/healthz?verbose&exclude=nope&exclude=etcd&exclude=ping", 200, "[+]ping excluded: ok\n[+]database ok\n" + controllers + "warn: some health checks cannot be excluded: no matches for \"etcd\",\"nope\"\nhealthz check passed\n"},
		{"/readyz/ping", 200, "ok"},
		{"/readyz/database", 200, "ok"},
		{"/readyz/poststarthook/namespace-controller", 200, "ok"},
		{"/livez/definitions", 404, ""},
		{"/readyz/nothing", 404, ""},
	}
	for _, tt := range tests {
		r := s.do(http.MethodGet, tt.path, "", "")
		if r.code != tt.code || tt.want != "" && r.String() != tt.want {
			t.Errorf("%s: %d %q; want %d %q", tt.path, r.code, r, tt.code, tt.want)
		}
	}
	s.store.Close()
	r := s.do(http.MethodGet, "/readyz", "", "")
	if r.code != http.StatusInternalServerError || r.String() != "[+]ping ok\n[-]database failed: reason withheld\n"+controllers+"readyz check failed\n" {
		t.Fatalf("/readyz with the database closed: %d %q", r.code, r)
	}
	if r := s.do(http.MethodGet, "/readyz/database", "", ""); r.code != http.StatusInternalServerError || r.String() != "internal server error: the database does not answer\n" {
		t.Fatalf("/readyz/database with the database closed: %d %q", r.code, r)
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
