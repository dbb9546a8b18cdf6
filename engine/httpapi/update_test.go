package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestUpdate(t *testing.T) {
	s := newTestServer(t)
	created := s.create(widgets, widget("u1", `{"size":1}`))

	t.Run("spec change bumps generation", func(t *testing.T) {
		body, _ := sjson.Set(created.String(), "spec.size", 2)
		r := s.mustDo(http.StatusOK, http.MethodPut, widgets+"/u1", "application/json", body)
		if r.get("spec.size").Int() != 2 || r.get("metadata.generation").Int() != 2 {
			t.Fatalf("update: %s", r)
		}
		if r.get("metadata.resourceVersion").Int() <= created.get("metadata.resourceVersion").Int() {
			t.Fatalf("resourceVersion did not increase: %s", r.get("metadata.resourceVersion"))
		}
		if r.get("metadata.uid").String() != created.get("metadata.uid").String() ||
			r.get("metadata.creationTimestamp").String() != created.get("metadata.creationTimestamp").String() {
			t.Fatalf("server-owned metadata changed: %s", r.get("metadata"))
		}
	})
	t.Run("stale resourceVersion is a conflict", func(t *testing.T) {
		body, _ := sjson.Set(created.String(), "spec.size", 3)
		r := s.do(http.MethodPut, widgets+"/u1", "application/json", body)
		wantStatus(t, r, http.StatusConflict, "Conflict")
		if !strings.Contains(r.get("message").String(), "the object has been modified") {
			t.Errorf("conflict message: %s", r.get("message"))
		}
	})
	t.Run("missing resourceVersion is invalid", func(t *testing.T) {
		r := s.do(http.MethodPut, widgets+"/u1", "application/json", widget("u1", `{"size":4}`))
		wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid")
		if r.get("details.causes.0.field").String() != "metadata.resourceVersion" {
			t.Errorf("causes: %s", r.get("details.causes"))
		}
	})
	t.Run("label change keeps generation", func(t *testing.T) {
		cur := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/u1", "", "")
		body, _ := sjson.Set(cur.String(), "metadata.labels.team", "a")
		r := s.mustDo(http.StatusOK, http.MethodPut, widgets+"/u1", "application/json", body)
		if r.get("metadata.generation").Int() != cur.get("metadata.generation").Int() || r.get("metadata.labels.team").String() != "a" {
			t.Fatalf("label update: %s", r)
		}
	})
	t.Run("no-op update keeps resourceVersion", func(t *testing.T) {
		cur := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/u1", "", "")
		r := s.mustDo(http.StatusOK, http.MethodPut, widgets+"/u1", "application/json", cur.String())
		if r.get("metadata.resourceVersion").String() != cur.get("metadata.resourceVersion").String() {
			t.Fatalf("no-op update wrote: %s -> %s", cur.get("metadata.resourceVersion"), r.get("metadata.resourceVersion"))
		}
	})
	t.Run("name must match the URL", func(t *testing.T) {
		cur := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/u1", "", "")
		body, _ := sjson.Set(cur.String(), "metadata.name", "other")
		wantStatus(t, s.do(http.MethodPut, widgets+"/u1", "application/json", body), http.StatusBadRequest, "BadRequest")
	})
	t.Run("update of a missing object", func(t *testing.T) {
		body, _ := sjson.Set(widget("nope", `{}`), "metadata.resourceVersion", "1")
		wantStatus(t, s.do(http.MethodPut, widgets+"/nope", "application/json", body), http.StatusNotFound, "NotFound")
	})
	t.Run("status is kept by the main resource", func(t *testing.T) {
		cur := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/u1", "", "")
		body, _ := sjson.Set(cur.String(), "status.phase", "Hacked")
		r := s.mustDo(http.StatusOK, http.MethodPut, widgets+"/u1", "application/json", body)
		if r.get("status").Exists() {
			t.Fatalf("status written through the main resource: %s", r.get("status"))
		}
	})
}

func TestStatusSubresource(t *testing.T) {
	s := newTestServer(t)
	created := s.create(widgets, widget("st", `{"size":1}`))
	body, _ := sjson.Set(created.String(), "status.phase", "Ready")
	body, _ = sjson.Set(body, "spec.size", 50)
	r := s.mustDo(http.StatusOK, http.MethodPut, widgets+"/st/status", "application/json", body)
	if r.get("status.phase").String() != "Ready" || r.get("spec.size").Int() != 1 || r.get("metadata.generation").Int() != 1 {
		t.Fatalf("status update: %s", r)
	}
	r = s.mustDo(http.StatusOK, http.MethodPatch, widgets+"/st/status", "application/merge-patch+json", `{"status":{"phase":"Done"}}`)
	if r.get("status.phase").String() != "Done" {
		t.Fatalf("status patch: %s", r)
	}
	got := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/st/status", "", "")
	if got.get("status.phase").String() != "Done" {
		t.Fatalf("status get: %s", got)
	}
	wantStatus(t, s.do(http.MethodGet, "/apis/shop.example.com/v1/warehouses/x/status", "", ""), http.StatusNotFound, "NotFound")
	wantStatus(t, s.do(http.MethodGet, widgets+"/st/scale", "", ""), http.StatusNotFound, "NotFound")
}

func TestPatch(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"p","labels":{"a":"1"}},"spec":{"size":1,"tags":["x"]}}`)
	tests := []struct {
		name, contentType, patch string
		code                     int
		check                    string // gjson path that must equal want
		want                     string
	}{
		{"merge", "application/merge-patch+json", `{"spec":{"size":7},"metadata":{"labels":{"b":"2"}}}`, 200, "spec.size", "7"},
		{"merge removes a label", "application/merge-patch+json", `{"metadata":{"labels":{"a":null}}}`, 200, "metadata.labels.a", ""},
		{"json patch", "application/json-patch+json", `[{"op":"add","path":"/spec/tags/-","value":"y"}]`, 200, "spec.tags.1", "y"},
		{"json patch test fails", "application/json-patch+json", `[{"op":"test","path":"/spec/size","value":99}]`, 422, "reason", "Invalid"},
		{"schema still applies", "application/merge-patch+json", `{"spec":{"size":"big"}}`, 422, "details.causes.0.field", "spec.size"},
		{"strategic merge is refused", "application/strategic-merge-patch+json", `{"spec":{"size":2}}`, 415, "message",
			"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"},
		{"malformed patch", "application/merge-patch+json", `{"spec":`, 400, "reason", "BadRequest"},
		{"stale resourceVersion in the patch", "application/merge-patch+json", `{"metadata":{"resourceVersion":"1"}}`, 409, "reason", "Conflict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(http.MethodPatch, widgets+"/p", tt.contentType, tt.patch)
			if r.code != tt.code {
				t.Fatalf("code %d, want %d: %s", r.code, tt.code, r)
			}
			if got := r.get(tt.check).String(); got != tt.want {
				t.Fatalf("%s = %q, want %q: %s", tt.check, got, tt.want, r)
			}
		})
	}
	wantStatus(t, s.do(http.MethodPatch, widgets+"/missing", "application/merge-patch+json", `{}`), http.StatusNotFound, "NotFound")
}

// TestNamespaceStrategicMergePatch: a Namespace, a built-in kind, takes the
// strategic merge patches kubectl sends for it (apply, edit, patch), with
// the merge keys of its schema (ObjectMeta's for metadata).
func TestNamespaceStrategicMergePatch(t *testing.T) {
	s := newTestServer(t)
	s.create("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"smp","labels":{"a":"1","b":"2"},"finalizers":["x.io/one"]}}`)
	const smp = "application/strategic-merge-patch+json"
	r := s.mustDo(http.StatusOK, http.MethodPatch, "/api/v1/namespaces/smp", smp,
		`{"metadata":{"labels":{"a":null,"c":"3"},"finalizers":["x.io/two"]}}`)
	jsoneq.Assert(t, r.get("metadata.labels").Raw, `{"b":"2","c":"3","kubernetes.io/metadata.name":"smp"}`)
	// metadata.finalizers merge (patchStrategy merge in ObjectMeta): both
	// stay, in the order strategicpatch gives.
	jsoneq.Assert(t, r.get("metadata.finalizers").Raw, `["x.io/two","x.io/one"]`)
	bad := s.do(http.MethodPatch, "/api/v1/namespaces/smp", smp, `{"metadata":{"labels":{"$patch":"bogus"}}}`)
	wantStatus(t, bad, http.StatusBadRequest, "BadRequest")
	apply := s.do(http.MethodPatch, "/api/v1/namespaces/smp?fieldManager=ops", "application/apply-patch+yaml",
		"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: smp\n  labels:\n    d: \"4\"\n")
	if apply.code != http.StatusOK || apply.get("metadata.labels.d").String() != "4" || apply.get("metadata.labels.b").String() != "2" {
		t.Errorf("apply patch: %d %s", apply.code, apply)
	}
	cbor := s.do(http.MethodPatch, "/api/v1/namespaces/smp", "application/apply-patch+cbor", "\xa0")
	if cbor.code != http.StatusUnsupportedMediaType || !strings.HasSuffix(cbor.get("message").String(), ", application/apply-patch+yaml") {
		t.Errorf("cbor apply patch: %d %s", cbor.code, cbor)
	}
}
