package openapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

func definition(group, kind string, versions ...string) string {
	s := "group: " + group + "\nkind: " + kind + "\nplural: " + strings.ToLower(kind) + "s\nscope: Namespaced\nversions:\n"
	for i, v := range versions {
		s += "- name: " + v + "\n  storage: " + map[bool]string{true: "true", false: "false"}[i == 0] +
			"\n  schema: {type: object, properties: {spec: {type: object, properties: {color: {type: string}}}}}\n"
	}
	return s
}

func noDeletes(engine.GroupResource) bool { return false }

func load(t *testing.T, prev *registry.Snapshot, files map[string]string) *registry.Snapshot {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, src := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(src)}
	}
	snap, problems := registry.LoadWith(fsys, nil, registry.LoadOptions{Previous: prev, WithoutBuiltins: true})
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	return snap
}

// After a change, only the group versions it touched are rendered again,
// and the v2 document assembled from parts is the one rendered whole.
func TestBuildFromReusesUnchangedGroupVersions(t *testing.T) {
	files := map[string]string{
		"a.yaml": definition("a.example.com", "Apple", "v1", "v2"),
		"b.yaml": definition("b.example.com", "Banana", "v1"),
		"c.yaml": definition("b.example.com", "Cherry", "v1"),
	}
	snap := load(t, nil, files)
	first, err := Build(snap, noDeletes)
	if err != nil {
		t.Fatal(err)
	}
	files["c.yaml"] = definition("b.example.com", "Cherry", "v1", "v1beta1")
	next, err := BuildFrom(first, load(t, snap, files), noDeletes)
	if err != nil {
		t.Fatal(err)
	}
	for path, changed := range map[string]bool{"apis/a.example.com/v1": false, "apis/a.example.com/v2": false,
		"apis/b.example.com/v1": true, "apis/b.example.com/v1beta1": true} {
		p, ok := next.gvs[path]
		if !ok {
			t.Fatalf("%s: no document", path)
		}
		if reused := first.gvs[path] == p; reused == changed {
			t.Errorf("%s: reused = %v, want %v", path, reused, !changed)
		}
	}
	v2JSON, v2Proto := v2Bytes(t, next)
	var assembled, whole openapiv2.Document
	if err := proto.Unmarshal(v2Proto, &assembled); err != nil {
		t.Fatal(err)
	}
	parsed, err := openapiv2.ParseDocument(v2JSON)
	if err != nil {
		t.Fatal(err)
	}
	whole.Reset()
	proto.Merge(&whole, parsed)
	if len(assembled.GetPaths().GetPath()) != len(whole.GetPaths().GetPath()) ||
		len(assembled.GetDefinitions().GetAdditionalProperties()) != 2*5+len(metaModelsV2()) ||
		len(whole.GetDefinitions().GetAdditionalProperties()) != 2*5+len(metaModelsV2()) ||
		assembled.GetSwagger() != "2.0" || assembled.GetInfo().GetTitle() != "dynapi" {
		t.Errorf("assembled protobuf: %d paths, %d definitions; JSON: %d paths, %d definitions",
			len(assembled.GetPaths().GetPath()), len(assembled.GetDefinitions().GetAdditionalProperties()),
			len(whole.GetPaths().GetPath()), len(whole.GetDefinitions().GetAdditionalProperties()))
	}
}

// The v2 document is rendered when it is first asked for, not with the v3
// documents; a group version's share of it is rendered once, and reused by
// the documents of later snapshots while the group version is unchanged.
func TestV2RenderedOnDemand(t *testing.T) {
	files := map[string]string{
		"a.yaml": definition("a.example.com", "Apple", "v1"),
		"b.yaml": definition("b.example.com", "Banana", "v1"),
	}
	snap := load(t, nil, files)
	first, err := Build(snap, noDeletes)
	if err != nil {
		t.Fatal(err)
	}
	for path, p := range first.gvs {
		if p.v2.proto.size > 0 {
			t.Errorf("%s: v2 rendered with the v3 documents", path)
		}
	}
	if _, err := first.V2(); err != nil {
		t.Fatal(err)
	}
	files["b.yaml"] = definition("b.example.com", "Banana", "v1", "v2")
	next, err := BuildFrom(first, load(t, snap, files), noDeletes)
	if err != nil {
		t.Fatal(err)
	}
	v2JSON, _ := v2Bytes(t, next)
	if apple := next.gvs["apis/a.example.com/v1"]; apple != first.gvs["apis/a.example.com/v1"] || apple.v2.proto.size == 0 {
		t.Error("the unchanged group version's v2 share was not reused")
	}
	if !strings.Contains(string(v2JSON), "com.example.b.v2.Banana") {
		t.Errorf("the changed group version is missing from v2: %.300s", v2JSON)
	}
}

// v2Bytes renders the v2 document of docs in JSON and in protobuf.
func v2Bytes(t *testing.T, docs *Docs) (jsonDoc, protoDoc []byte) {
	t.Helper()
	v2, err := docs.V2()
	if err != nil {
		t.Fatal(err)
	}
	proto, err := v2.Proto()
	if err != nil {
		t.Fatal(err)
	}
	return bodyBytes(t, v2.JSON()), bodyBytes(t, proto)
}

// bodyBytes writes b inflated, and checks that its gzip holds the same.
func bodyBytes(t *testing.T, b Body) []byte {
	t.Helper()
	var plain, gz bytes.Buffer
	if err := b.Write(&plain); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteGzip(&gz); err != nil {
		t.Fatal(err)
	}
	r, err := gzip.NewReader(&gz)
	if err != nil {
		t.Fatal(err)
	}
	r.Multistream(false) // one member, as clients that read only one expect
	unzipped, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	if !bytes.Equal(unzipped, plain.Bytes()) {
		t.Fatalf("gzip holds %d bytes, not the %d written plain", len(unzipped), plain.Len())
	}
	return plain.Bytes()
}

// Compact packs the v3 documents; each is served the same before and
// after, plain and in gzip.
func TestCompactKeepsDocuments(t *testing.T) {
	docs := twoGroups(t)
	before := map[string][]byte{}
	for path := range docs.gvs {
		doc, _ := docs.GroupVersion(path)
		before[path] = bodyBytes(t, doc.Body)
	}
	docs.Compact()
	for path, want := range before {
		doc, _ := docs.GroupVersion(path)
		if doc.Body.raw != nil || len(doc.Body.pieces) == 0 {
			t.Errorf("%s: not packed", path)
		}
		if got := bodyBytes(t, doc.Body); !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes packed, %d as rendered", path, len(got), len(want))
		}
	}
}
