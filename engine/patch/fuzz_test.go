package patch

import (
	"encoding/json"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/schema"
)

// FuzzApplyPatch: a JSON or merge patch on an object applies or is refused
// with a 4xx code, never a panic, and what applies is JSON, its copies
// bounded.
func FuzzApplyPatch(f *testing.F) {
	const maxCopyBytes = 3 << 20 // the pipeline's bound (resource.MaxObjectBytes)
	obj := `{"apiVersion":"v1","kind":"Thing","metadata":{"name":"a"},"spec":{"list":[1,2],"m":{"k":"v"}}}`
	for _, seed := range []struct{ patch string }{
		{`{"spec":{"list":null,"x":1}}`}, {`[]`}, {`null`}, {`[{"op":"add","path":"/spec/list/0","value":0}]`},
		{`[{"op":"copy","from":"/spec","path":"/spec/c"}]`}, {`[{"op":"move","from":"/spec","path":"/spec/m"}]`},
		{`[{"op":"remove","path":"/spec/list/-"}]`}, {`[{"op":"test","path":"/kind","value":"Thing"}]`},
		{`[{"op":"test","path":"","value":null}]`}, {`[{"op":"add","path":"/spec/n","value":null}]`},
	} {
		f.Add([]byte(obj), []byte(seed.patch), true)
		f.Add([]byte(obj), []byte(seed.patch), false)
	}
	f.Fuzz(func(tt *testing.T, obj, patch []byte, jsonPatch bool) {
		if !json.Valid(obj) || !json.Valid(patch) {
			return
		}
		var out []byte
		var err error
		if jsonPatch {
			out, err = JSON(obj, patch, maxCopyBytes)
		} else {
			patch, _ = schema.DropDuplicates(patch) // as the pipeline gives a merge patch
			out, err = Merge(obj, patch)
		}
		if err != nil {
			if c := engine.ErrorCode(err); c == engine.CodeInternal {
				tt.Fatalf("apply(%s, %s): %v", obj, patch, err)
			}
			return
		}
		if !json.Valid(out) {
			tt.Fatalf("apply(%s, %s) = %s: not JSON", obj, patch, out)
		}
		if len(out) > len(obj)+len(patch)+maxCopyBytes+64 {
			tt.Fatalf("apply grew %d bytes to %d", len(obj)+len(patch), len(out))
		}
	})
}
