package resource

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// FuzzApplyPatch: a JSON or merge patch on an object applies or is refused
// with a 4xx code, never a panic, and what applies is JSON, its copies
// bounded.
func FuzzApplyPatch(f *testing.F) {
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
	t := Target{Resource: &registry.Resource{}}
	f.Fuzz(func(tt *testing.T, obj, patch []byte, jsonPatch bool) {
		if !json.Valid(obj) || !json.Valid(patch) {
			return
		}
		typ := MergePatch
		if jsonPatch {
			typ = JSONPatch
		}
		out, err := applyPatch(t, typ, obj, patch)
		if err != nil {
			if c := engine.ErrorCode(err); c == engine.CodeInternal {
				tt.Fatalf("applyPatch(%s, %s): %v", obj, patch, err)
			}
			return
		}
		if !json.Valid(out) {
			tt.Fatalf("applyPatch(%s, %s) = %s: not JSON", obj, patch, out)
		}
		if len(out) > len(obj)+len(patch)+MaxObjectBytes+64 {
			tt.Fatalf("applyPatch grew %d bytes to %d", len(obj)+len(patch), len(out))
		}
	})
}

// FuzzParseResourceVersion: a resourceVersion parses to a positive number
// or is refused with 422.
func FuzzParseResourceVersion(f *testing.F) {
	for _, seed := range []string{"", "1", "0", "-1", "9223372036854775807", "9223372036854775808", "1e3", " 1", "abc"} {
		f.Add(seed)
	}
	t := Target{Resource: &registry.Resource{}}
	f.Fuzz(func(tt *testing.T, s string) {
		rv, err := parseResourceVersion(t, &metav1.ObjectMeta{ResourceVersion: s})
		if err == nil && rv <= 0 || err != nil && engine.ErrorCode(err) != engine.CodeInvalid {
			tt.Fatalf("parseResourceVersion(%q) = %d, %v", s, rv, err)
		}
	})
}
