package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestOpenAPIv3(t *testing.T) {
	s := newTestServer(t)
	root := s.mustDo(http.StatusOK, http.MethodGet, "/openapi/v3", "", "")
	url := root.get(`paths.apis/shop\.example\.com/v1.serverRelativeURL`).String()
	if !strings.HasPrefix(url, "/openapi/v3/apis/shop.example.com/v1?hash=") || !root.get(`paths.api/v1`).Exists() {
		t.Fatalf("root: %s", root)
	}
	doc := s.mustDo(http.StatusOK, http.MethodGet, url, "", "")
	if doc.header.Get("Cache-Control") != "public, immutable" {
		t.Errorf("Cache-Control of a hashed URL = %q", doc.header.Get("Cache-Control"))
	}
	patch := doc.get(`paths./apis/shop\.example\.com/v1/namespaces/{namespace}/widgets/{name}.patch`)
	if patch.Get("x-kubernetes-group-version-kind.kind").String() != "Widget" ||
		!patch.Get(`parameters.#(name=="fieldValidation")`).Exists() {
		t.Fatalf("patch operation lacks what kubectl's field-validation check reads: %s", patch.Raw)
	}
	widget := doc.get(`components.schemas.com\.example\.shop\.v1\.Widget`)
	if widget.Get("properties.spec.properties.color.enum").Raw != `["red","green","blue"]` ||
		widget.Get("x-kubernetes-group-version-kind.0.kind").String() != "Widget" {
		t.Fatalf("Widget schema: %s", widget.Raw)
	}
	if !doc.get(`paths./apis/shop\.example\.com/v1/widgets.get`).Exists() {
		t.Fatalf("no list across namespaces path")
	}
	stale := s.do(http.MethodGet, "/openapi/v3/apis/shop.example.com/v1?hash=OLD", "", "")
	if stale.code != http.StatusOK || stale.get("openapi").String() != "3.0.0" {
		t.Fatalf("stale hash not redirected to the document: %d", stale.code)
	}
	wantStatus(t, s.do(http.MethodGet, "/openapi/v3/apis/nope/v1", "", ""), http.StatusNotFound, "NotFound")

	if !doc.get(`paths./apis/shop\.example\.com/v1/namespaces/{namespace}/widgets.delete`).Exists() {
		t.Errorf("no deletecollection of widgets")
	}
	core := s.mustDo(http.StatusOK, http.MethodGet, root.get(`paths.api/v1.serverRelativeURL`).String(), "", "")
	if namespaces := core.get(`paths./api/v1/namespaces`); !namespaces.Get("post").Exists() || namespaces.Get("delete").Exists() {
		t.Errorf("namespaces collection: %s; want create and no deletecollection", namespaces.Raw)
	}
}

// TestOpenAPIv2 serves the Swagger 2.0 document in JSON and in the
// protobuf kubectl asks for, with an ETag.
func TestOpenAPIv2(t *testing.T) {
	s := newTestServer(t)
	doc := s.mustDo(http.StatusOK, http.MethodGet, "/openapi/v2", "", "")
	if doc.header.Get("Content-Type") != "application/json" || doc.get("swagger").String() != "2.0" {
		t.Fatalf("JSON: %s %.200s", doc.header.Get("Content-Type"), doc)
	}
	widget := doc.get(`definitions.com\.example\.shop\.v1\.Widget`)
	if widget.Get("x-kubernetes-group-version-kind.0.kind").String() != "Widget" || widget.Get("properties.spec.properties.size.type").String() != "integer" ||
		widget.Get("properties.metadata.$ref").String() != "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" {
		t.Errorf("Widget model: %s; want its structural schema", widget.Raw)
	}
	// What Swagger 2.0 cannot say is dropped as kube-apiserver drops it:
	// a nullable field loses its type, int-or-string its anyOf, a field
	// that keeps unknown fields its type object.
	labs := doc.get(`definitions.com\.example\.labs\.v1alpha1\.Widget.properties.spec.properties`)
	if labs.Get("color.type").Exists() || labs.Get("color.nullable").Exists() || labs.Get("port.anyOf").Exists() ||
		!labs.Get("port.x-kubernetes-int-or-string").Bool() || labs.Get("config.type").Exists() || labs.Get("replicas.minimum").Int() != 0 ||
		labs.Get("color.description").String() == "" {
		t.Errorf("labs Widget spec: %s", labs.Raw)
	}
	if list := doc.get(`definitions.com\.example\.shop\.v1\.WidgetList`); list.Get("properties.items.items.$ref").String() != "#/definitions/com.example.shop.v1.Widget" {
		t.Errorf("WidgetList model: %s", list.Raw)
	}
	// kubectl apply sends a strategic merge patch to a kind whose PATCH
	// consumes one: none of dynapi's may say so.
	patch := doc.get(`paths./apis/shop\.example\.com/v1/namespaces/{namespace}/widgets/{name}.patch`)
	jsoneq.Assert(t, patch.Get("consumes").Raw, `["application/json-patch+json","application/merge-patch+json"]`)
	if patch.Get("x-kubernetes-group-version-kind.kind").String() != "Widget" ||
		patch.Get(`parameters.#(in=="body").schema.type`).String() != "object" {
		t.Errorf("patch operation: %s", patch.Raw)
	}
	proto := s.do(http.MethodGet, "/openapi/v2", "", "", "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	if proto.code != http.StatusOK || proto.header.Get("Content-Type") != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" ||
		len(proto.body) == 0 || proto.body[0] == '{' {
		t.Fatalf("protobuf: %d %s", proto.code, proto.header.Get("Content-Type"))
	}
	if again := s.do(http.MethodGet, "/openapi/v2", "", "", "If-None-Match", doc.header.Get("Etag")); again.code != http.StatusNotModified {
		t.Errorf("with its ETag: %d", again.code)
	}
	// Go's client asks for gzip and inflates it (doc); the document is
	// the same to a client that does not, and one that inflates itself.
	plain := s.mustDo(http.StatusOK, http.MethodGet, "/openapi/v2", "", "", "Accept-Encoding", "identity")
	zipped := s.mustDo(http.StatusOK, http.MethodGet, "/openapi/v2", "", "", "Accept-Encoding", "gzip")
	r, err := gzip.NewReader(bytes.NewReader(zipped.body))
	if err != nil {
		t.Fatalf("gzip answer: %v", err)
	}
	unzipped, err := io.ReadAll(r)
	if err != nil || plain.header.Get("Content-Encoding") != "" || zipped.header.Get("Content-Encoding") != "gzip" ||
		!bytes.Equal(plain.body, doc.body) || !bytes.Equal(unzipped, doc.body) || plain.header.Get("Etag") == zipped.header.Get("Etag") {
		t.Errorf("plain (%q, %d bytes) and gzip (%q, %d bytes, %v) answers differ from the %d bytes inflated by the client",
			plain.header.Get("Content-Encoding"), len(plain.body), zipped.header.Get("Content-Encoding"), len(unzipped), err, len(doc.body))
	}
}

// The v2 document's ETag tells its encodings apart, and a client that
// holds the protobuf document is answered 304 with the protobuf's ETag
// only; a JSON ETag does not stand for the protobuf.
func TestOpenAPIv2ETagPerEncoding(t *testing.T) {
	s := newTestServer(t)
	const protobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	doc := s.mustDo(http.StatusOK, http.MethodGet, "/openapi/v2", "", "")
	proto := s.mustDo(http.StatusOK, http.MethodGet, "/openapi/v2", "", "", "Accept", protobuf)
	if doc.header.Get("Etag") == proto.header.Get("Etag") {
		t.Fatalf("JSON and protobuf share the ETag %s", doc.header.Get("Etag"))
	}
	tests := []struct {
		name string
		etag string
		want int
	}{
		{"the protobuf's", proto.header.Get("Etag"), http.StatusNotModified},
		{"the JSON's", doc.header.Get("Etag"), http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.do(http.MethodGet, "/openapi/v2", "", "", "Accept", protobuf, "If-None-Match", tt.etag)
			if got.code != tt.want {
				t.Errorf("%d, want %d", got.code, tt.want)
			}
		})
	}
}
