package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
)

// TestNamespaceMarkedBeforeStartIsEmptied: a namespace marked for deletion
// by a process that stopped before emptying it is emptied and deleted by
// the next process to start.
func TestNamespaceMarkedBeforeStartIsEmptied(t *testing.T) {
	url, _ := startPostgres(t)
	first := runMain(t, Config{DatabaseURL: url})
	base := "http://" + first.Addr()
	mustDo(t, http.StatusCreated, http.MethodPost, base+"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"half"}}`)
	mustDo(t, http.StatusCreated, http.MethodPost, base+"/apis/shop.example.com/v1/namespaces/half/widgets",
		`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red","size":1}}`)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	// Marked as a delete marks it, by a process that is gone before its
	// finalizer looked.
	ctx := context.Background()
	store, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	key := engine.ObjectKey{Resource: engine.GroupResource{Resource: "namespaces"}, Name: "half"}
	ns, err := store.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	ns.Body, _ = sjson.SetBytes(ns.Body, "metadata.deletionTimestamp", "2026-01-01T00:00:00Z")
	ns.Body, _ = sjson.SetBytes(ns.Body, "status.phase", "Terminating")
	if _, err := store.Update(ctx, ns); err != nil {
		t.Fatal(err)
	}
	store.Close()

	second := startMain(t, Config{DatabaseURL: url})
	// Within waitFor's 2 s, well before the 10 s recheck: the first look is at start.
	for _, path := range []string{"/apis/shop.example.com/v1/namespaces/half/widgets/w", "/api/v1/namespaces/half"} {
		waitFor(t, http.StatusNotFound, path, "http://"+second.Addr())
	}
}

// TestSystemNamespaces: default, kube-system, kube-public and
// kube-node-lease exist once the server starts, as kube-apiserver creates
// them, and none of them can be deleted.
func TestSystemNamespaces(t *testing.T) {
	url, _ := startPostgres(t)
	base := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	for _, name := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		t.Run(name, func(t *testing.T) {
			mustDo(t, http.StatusOK, http.MethodGet, base+"/api/v1/namespaces/"+name, "")
			body := mustDo(t, http.StatusForbidden, http.MethodDelete, base+"/api/v1/namespaces/"+name, "")
			want := `namespaces "` + name + `" is forbidden: this namespace may not be deleted`
			if got := gjson.Get(body, "message").String(); got != want {
				t.Errorf("message %q, want %q", got, want)
			}
			mustDo(t, http.StatusOK, http.MethodGet, base+"/api/v1/namespaces/"+name, "")
		})
	}
}

// TestRootCAPublished: with a CA, every namespace holds the
// kube-root-ca.crt ConfigMap with it, as kube's root CA publisher keeps
// it (re-created when deleted); without one, none.
func TestRootCAPublished(t *testing.T) {
	url, _ := startPostgres(t)
	dir := t.TempDir()
	ca := newTestCA(t)
	m := startMain(t, Config{DatabaseURL: url, Security: SecurityConfig{TokenAuthFile: secretFile(t, dir, "tokens.csv", []byte(rbacTokens)),
		AuthorizationMode: modeRBAC, RootCAFile: secretFile(t, dir, "ca.crt", ca.pem)}})
	s := &rbacServer{t: t, base: "http://" + m.Addr()}
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fresh"}}`)
	for _, ns := range []string{"default", "kube-system", "fresh"} {
		path := "/api/v1/namespaces/" + ns + "/configmaps/kube-root-ca.crt"
		s.eventually(http.StatusOK, "admin", "GET", path, "")
		cm := s.must(http.StatusOK, "admin", "GET", path, "")
		if gjson.Get(cm, `data.ca\.crt`).String() != string(ca.pem) ||
			!strings.HasPrefix(gjson.Get(cm, `metadata.annotations.kubernetes\.io/description`).String(), "Contains a CA bundle") {
			t.Fatalf("%s: %s", path, cm)
		}
	}
	s.must(http.StatusOK, "admin", "DELETE", "/api/v1/namespaces/fresh/configmaps/kube-root-ca.crt", "")
	s.eventually(http.StatusOK, "admin", "GET", "/api/v1/namespaces/fresh/configmaps/kube-root-ca.crt", "")

	// Without a CA, the contents are kept (the default ServiceAccount) but
	// no kube-root-ca.crt.
	other, _ := startPostgres(t)
	base := "http://" + startMain(t, Config{DatabaseURL: other}).Addr()
	waitFor(t, http.StatusOK, "/api/v1/namespaces/default/serviceaccounts/default", base)
	mustDo(t, http.StatusNotFound, http.MethodGet, base+"/api/v1/namespaces/default/configmaps/kube-root-ca.crt", "")
}
