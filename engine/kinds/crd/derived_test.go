package crd

import (
	"embed"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// What a definition file derives is a definition that matches the file,
// loaded on its own as the API loads it: the premise of isDerived and of
// the publisher's skipped Check. Proven for every definition file of the
// repository and for the built-in kinds' schemas (generated from kube's
// OpenAPI, which no definition file comes near), in the store's order of
// members as in the publisher's.
func TestDerivedMatchesItsFile(t *testing.T) {
	for _, r := range derivableKinds(t) {
		t.Run(r.GroupResource().String(), func(t *testing.T) {
			t.Parallel()
			def, _ := fileDefinition(r)
			if causes, _ := Check(def); len(causes) > 0 {
				t.Fatalf("Check refuses it: %v", causes)
			}
			if diff := loadedDifferences(r, def); len(diff) > 0 {
				t.Fatalf("loaded, it differs from its file: %v", diff)
			}
			for what, obj := range map[string][]byte{"as published": def, "as stored": reordered(t, def)} {
				if !isDerived(r, obj) {
					t.Errorf("%s: not found derived", what)
				}
			}
		})
	}
}

// A definition that is not exactly the derived one is not found derived:
// another name, one more field in the spec; nor is one of the core group,
// which Check refuses.
func TestDerivedIsExact(t *testing.T) {
	builtins, _ := registry.Load(embed.FS{}, nil)
	core, ok := builtins.Resource(engine.GroupResource{Resource: "configmaps"})
	if !ok {
		t.Fatal("no configmaps built in")
	}
	if def, _ := fileDefinition(core); isDerived(core, def) {
		t.Errorf("a kind of the core group is found derived")
	}
	r := derivableKinds(t)[0]
	def, _ := fileDefinition(r)
	renamed, err := sjson.SetBytes(def, "metadata.name", "other."+r.Group)
	if err != nil {
		t.Fatal(err)
	}
	widened, err := sjson.SetBytes(def, "spec.preserveUnknownFields", false)
	if err != nil {
		t.Fatal(err)
	}
	for what, obj := range map[string][]byte{"renamed": renamed, "another field": widened} {
		if isDerived(r, obj) {
			t.Errorf("%s: found derived", what)
		}
	}
}

// derivableKinds loads the definition files of the repository (the shipped
// ones and the test fixtures of the server's) and the built-in kinds but
// those of the core group.
func derivableKinds(t *testing.T) []*registry.Resource {
	t.Helper()
	builtins, _ := registry.Load(embed.FS{}, nil)
	var out []*registry.Resource
	for _, r := range builtins.Resources() {
		if r.Group != "" {
			out = append(out, r)
		}
	}
	for _, dir := range []string{"../../../schemas", "../../../cmd/dynapi/testdata/kubectl",
		"../../../cmd/dynapi/testdata/external-snapshotter", "../../../test/operators/testdata"} {
		snap, _ := registry.LoadWith(os.DirFS(dir), nil, registry.LoadOptions{WithoutBuiltins: true})
		out = append(out, snap.Resources()...)
	}
	if len(out) < 20 {
		t.Fatalf("%d kinds loaded: a folder moved?", len(out))
	}
	return out
}

// reordered returns obj with the members of each object in reverse order
// of their names (encoding/json writes them in order), as the store keeps
// them in its own.
func reordered(t *testing.T, obj []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(obj, &v); err != nil {
		t.Fatal(err)
	}
	return reversed(nil, v)
}

func reversed(out []byte, v any) []byte {
	switch v := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		slices.Reverse(keys)
		out = append(out, '{')
		for i, k := range keys {
			if i > 0 {
				out = append(out, ',')
			}
			out = strconv.AppendQuote(out, k)
			out = reversed(append(out, ':'), v[k])
		}
		return append(out, '}')
	case []any:
		out = append(out, '[')
		for i, item := range v {
			if i > 0 {
				out = append(out, ',')
			}
			out = reversed(out, item)
		}
		return append(out, ']')
	}
	b, _ := json.Marshal(v) // strings, numbers, booleans and null always marshal
	return append(out, b...)
}
