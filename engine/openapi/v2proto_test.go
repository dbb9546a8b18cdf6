package openapi

import (
	"bytes"
	"testing"
)

// The v2 document's JSON is served before its protobuf is rendered, and
// is the same, with the same hash (its ETag), once PrepareProto has
// rendered the protobuf.
func TestV2JSONBeforeProto(t *testing.T) {
	docs := twoGroups(t)
	v2, err := docs.V2()
	if err != nil {
		t.Fatal(err)
	}
	before := bodyBytes(t, v2.JSON())
	for path, p := range docs.gvs {
		if p.v2.paths.size == 0 || p.v2.proto.size > 0 {
			t.Errorf("%s: JSON %d bytes, protobuf %d; want the JSON alone", path, p.v2.paths.size, p.v2.proto.size)
		}
	}
	if err := v2.PrepareProto(); err != nil {
		t.Fatal(err)
	}
	for path, p := range docs.gvs {
		if p.v2.proto.size == 0 {
			t.Errorf("%s: protobuf not rendered", path)
		}
	}
	proto, err := v2.Proto()
	if err != nil {
		t.Fatal(err)
	}
	if len(bodyBytes(t, proto)) == 0 {
		t.Error("no protobuf")
	}
	again, _ := docs.V2()
	if !bytes.Equal(bodyBytes(t, again.JSON()), before) || again.Hash != v2.Hash {
		t.Error("the JSON document changed when its protobuf was rendered")
	}
}

// The v2 document's hash is the same for the same definitions, and not
// when a group version changes.
func TestV2HashFollowsDefinitions(t *testing.T) {
	files := map[string]string{"a.yaml": definition("a.example.com", "Apple", "v1")}
	hash := func(prev *Docs, files map[string]string) (*Docs, string) {
		t.Helper()
		docs, err := BuildFrom(prev, load(t, nil, files), noDeletes)
		if err != nil {
			t.Fatal(err)
		}
		v2, err := docs.V2()
		if err != nil {
			t.Fatal(err)
		}
		return docs, v2.Hash
	}
	first, h1 := hash(nil, files)
	if _, h2 := hash(nil, files); h2 != h1 {
		t.Error("the same definitions, another hash")
	}
	files["a.yaml"] = definition("a.example.com", "Apple", "v1", "v2")
	if _, h3 := hash(first, files); h3 == h1 {
		t.Error("a changed group version, the same hash")
	}
}

// The JSON document is written while the protobuf shares are being
// rendered, in the background and by a protobuf request at once (go test
// -race checks that they share nothing unguarded).
func TestV2JSONWhileProtoRenders(t *testing.T) {
	docs := twoGroups(t)
	v2, err := docs.V2()
	if err != nil {
		t.Fatal(err)
	}
	want := bodyBytes(t, v2.JSON())
	done := make(chan error, 2)
	go func() { done <- v2.PrepareProto() }()
	go func() {
		_, err := v2.Proto()
		done <- err
	}()
	again, _ := docs.V2()
	if got := bodyBytes(t, again.JSON()); !bytes.Equal(got, want) {
		t.Errorf("%d bytes while the protobuf renders, %d before", len(got), len(want))
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// twoGroups is the documents of two groups, one of them in two versions.
func twoGroups(t *testing.T) *Docs {
	t.Helper()
	files := map[string]string{
		"a.yaml": definition("a.example.com", "Apple", "v1", "v2"),
		"b.yaml": definition("b.example.com", "Banana", "v1"),
	}
	docs, err := Build(load(t, nil, files), noDeletes)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}
