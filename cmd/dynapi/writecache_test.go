package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// TestWritesOverAnotherProcessesChange: two servers on one database, each
// with its cache of the objects it wrote. After B changes a widget A
// created, A's PUT with the resourceVersion A created it at is kube's
// Conflict (not answered from A's cache), A's merge patch applies to B's
// change, and A's delete deletes the latest and answers it.
func TestWritesOverAnotherProcessesChange(t *testing.T) {
	url, _ := startPostgres(t)
	a := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	b := "http://" + startMain(t, Config{DatabaseURL: url}).Addr()
	mustDo(t, http.StatusCreated, http.MethodPost, a+"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"cached"}}`)
	widgets := "/apis/shop.example.com/v1/namespaces/cached/widgets"
	created := mustDo(t, http.StatusCreated, http.MethodPost, a+widgets,
		`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1}}`)
	if code, out := sendAs(t, http.MethodPatch, b+widgets+"/w", "application/merge-patch+json", `{"metadata":{"labels":{"by":"b"}}}`); code != http.StatusOK {
		t.Fatalf("B's patch = %d %s", code, out)
	}

	stale, _ := sjson.Set(created, "spec.size", 2)
	code, out := send(t, http.MethodPut, a+widgets+"/w", stale)
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"Operation cannot be fulfilled on widgets.shop.example.com \"w\": the object has been modified; please apply your changes to the latest version and try again",
		"reason":"Conflict","details":{"name":"w","group":"shop.example.com","kind":"widgets"},"code":409}`
	if code != http.StatusConflict || !jsoneq.Equal([]byte(out), []byte(want)) {
		t.Fatalf("A's PUT at the resourceVersion it created = %d %s\nwant 409 %s", code, out, want)
	}

	code, out = sendAs(t, http.MethodPatch, a+widgets+"/w", "application/merge-patch+json", `{"spec":{"size":3}}`)
	if code != http.StatusOK || gjson.Get(out, "metadata.labels.by").Str != "b" || gjson.Get(out, "spec.size").Int() != 3 {
		t.Fatalf("A's merge patch = %d %s, want B's label kept and size 3", code, out)
	}
	if code, out = send(t, http.MethodPut, a+widgets+"/w", strings.Replace(out, `"size":3`, `"size":4`, 1)); code != http.StatusOK {
		t.Fatalf("A's PUT at the latest resourceVersion = %d %s", code, out)
	}
	if code, out := sendAs(t, http.MethodPatch, b+widgets+"/w", "application/merge-patch+json", `{"metadata":{"labels":{"by":"b2"}}}`); code != http.StatusOK {
		t.Fatalf("B's second patch = %d %s", code, out)
	}
	deleted := mustDo(t, http.StatusOK, http.MethodDelete, a+widgets+"/w", "")
	if gjson.Get(deleted, "metadata.labels.by").Str != "b2" || gjson.Get(deleted, "spec.size").Int() != 4 {
		t.Fatalf("A's delete answered %s, want the latest (label b2, size 4)", deleted)
	}
	if code, _ := httpGet(t, b+widgets+"/w"); code != http.StatusNotFound {
		t.Fatalf("after A's delete, B's get = %d, want 404", code)
	}
}
