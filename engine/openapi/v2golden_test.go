package openapi

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

var update = flag.Bool("update", false, "rewrite the v2 documents in testdata")

// The v2 document of the shipped definitions and the built-in kinds is
// the one testdata holds, byte for byte in both encodings: how it is
// rendered, kept and written may change, what a client reads may not.
func TestV2Golden(t *testing.T) {
	snap, _ := registry.LoadWith(os.DirFS("../../schemas"), os.DirFS("../../conversions"), registry.LoadOptions{})
	deletes := func(gr engine.GroupResource) bool { return gr.Resource != "namespaces" }
	docs, err := Build(snap, deletes)
	if err != nil {
		t.Fatal(err)
	}
	jsonDoc, protoDoc := v2Bytes(t, docs)
	for name, got := range map[string][]byte{"v2.json": jsonDoc, "v2.pb": protoDoc} {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, not the %d of testdata (go test -update rewrites it)", name, len(got), len(want))
		}
	}
}
