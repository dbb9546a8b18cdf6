package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// The Accept header client-go's metadata client sends for a list, and for
// get and watch: protobuf first, which dynapi passes over.
const (
	acceptMetaList = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	acceptMeta     = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
)

func TestPartialObjectMetadataGet(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"m1","labels":{"a":"b"}},"spec":{"size":4,"color":"blue"}}`)
	r := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/m1", "", "", "Accept", acceptMeta)
	if r.get("kind").String() != "PartialObjectMetadata" || r.get("apiVersion").String() != "meta.k8s.io/v1" ||
		r.get("metadata.name").String() != "m1" || r.get("metadata.labels.a").String() != "b" || r.get("spec").Exists() ||
		r.get("metadata.resourceVersion").Int() == 0 || r.get("metadata.uid").String() == "" {
		t.Fatalf("get: %s", r)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io" {
		t.Errorf("Content-Type = %q", ct)
	}
	if r.header.Get("Vary") != "Accept" {
		t.Errorf("Vary = %q", r.header.Get("Vary"))
	}
	beta := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/m1", "", "", "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1")
	if beta.get("apiVersion").String() != "meta.k8s.io/v1beta1" {
		t.Fatalf("v1beta1: %s", beta)
	}
	// A list representation does not fit one object: the next range does.
	full := s.mustDo(http.StatusOK, http.MethodGet, widgets+"/m1", "", "", "Accept", acceptMetaList)
	if full.get("kind").String() != "Widget" || full.header.Get("Content-Type") != "application/json" {
		t.Fatalf("fallback to JSON: %s", full)
	}
	wantStatus(t, s.do(http.MethodGet, widgets+"/m1", "", "", "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
		http.StatusNotAcceptable, "NotAcceptable")
	wantStatus(t, s.do(http.MethodGet, widgets+"/m1", "", "", "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2"),
		http.StatusNotAcceptable, "NotAcceptable")
}

func TestPartialObjectMetadataList(t *testing.T) {
	s := newTestServer(t)
	for _, name := range []string{"a1", "a2", "a3"} {
		s.create(widgets, widget(name, `{"size":1,"color":"red"}`))
	}
	want := s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "")
	// At the full list's resourceVersion: the server's own controllers
	// (a namespace's default ServiceAccount) may write in between.
	atRV := widgets + "?resourceVersionMatch=Exact&resourceVersion=" + want.get("metadata.resourceVersion").String()
	r := s.mustDo(http.StatusOK, http.MethodGet, atRV, "", "", "Accept", acceptMetaList)
	if r.get("kind").String() != "PartialObjectMetadataList" || r.get("apiVersion").String() != "meta.k8s.io/v1" ||
		r.header.Get("Content-Type") != "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io" {
		t.Fatalf("list: %s %s", r.header.Get("Content-Type"), r)
	}
	jsoneq.Assert(t, r.get("items.#.metadata").Raw, want.get("items.#.metadata").Raw)
	jsoneq.Assert(t, r.get("items.#.kind").Raw, `["PartialObjectMetadata","PartialObjectMetadata","PartialObjectMetadata"]`)
	if r.get("metadata.resourceVersion").String() != want.get("metadata.resourceVersion").String() {
		t.Errorf("resourceVersion %s, want %s", r.get("metadata.resourceVersion"), want.get("metadata.resourceVersion"))
	}
	page := s.mustDo(http.StatusOK, http.MethodGet, widgets+"?limit=2", "", "", "Accept", acceptMetaList)
	if page.get("items.#").Int() != 2 || page.get("metadata.continue").String() == "" {
		t.Fatalf("page: %s", page)
	}
	// PartialObjectMetadata alone does not fit a list: JSON is next.
	full := s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "", "Accept", acceptMeta)
	if full.get("kind").String() != "WidgetList" {
		t.Fatalf("fallback: %s", full)
	}
}

// A kind whose conversion rules touch metadata (Pipe v3's notes go to an
// annotation of the hub) shows the metadata of the requested version.
func TestPartialObjectMetadataListConverted(t *testing.T) {
	s := newTestServer(t)
	const pipes = "/apis/plumbing.example.com/v3/namespaces/default/pipes"
	s.create(pipes, `{"apiVersion":"plumbing.example.com/v3","kind":"Pipe","metadata":{"name":"p1"},"spec":{"notes":"hello","material":"Steel","dimensions":{"diameter":10}}}`)
	for _, path := range []string{pipes, "/apis/plumbing.example.com/v2/namespaces/default/pipes"} {
		want := s.mustDo(http.StatusOK, http.MethodGet, path, "", "")
		r := s.mustDo(http.StatusOK, http.MethodGet, path, "", "", "Accept", acceptMetaList)
		jsoneq.Assert(t, r.get("items.#.metadata").Raw, want.get("items.#.metadata").Raw)
	}
}

func TestPartialObjectMetadataWatch(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("w0", `{"size":1,"color":"red"}`))
	w := s.watch(widgets+"?watch=true&allowWatchBookmarks=true", "Accept", acceptMeta)
	ev := w.expect("ADDED", "w0")
	if ev.Get("object.kind").String() != "PartialObjectMetadata" || ev.Get("object.spec").Exists() {
		t.Fatalf("event: %s", ev.Raw)
	}
	s.create(widgets, widget("w1", `{"size":1,"color":"red"}`))
	ev = w.expect("ADDED", "w1")
	if ev.Get("object.apiVersion").String() != "meta.k8s.io/v1" || ev.Get("object.metadata.resourceVersion").Int() == 0 {
		t.Fatalf("event: %s", ev.Raw)
	}
	s.mustDo(http.StatusOK, http.MethodDelete, widgets+"/w1", "", "")
	w.expect("DELETED", "w1")
}
