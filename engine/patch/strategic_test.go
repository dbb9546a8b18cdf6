package patch

import (
	"encoding/json"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// podLike is a structural schema whose containers merge by name, as
// Kubernetes' OpenAPI declares a Pod's.
const podLike = `{"type":"object","properties":{"spec":{"type":"object","properties":{
	"containers":{"type":"array","x-kubernetes-patch-merge-key":"name","x-kubernetes-patch-strategy":"merge",
		"items":{"type":"object","properties":{"name":{"type":"string"},"image":{"type":"string"}}}},
	"args":{"type":"array","items":{"type":"string"}}}}}}`

// TestStrategicMerge: lists merge as the schema declares, metadata as
// ObjectMeta's Go tags do, and the rest as a merge patch would.
func TestStrategicMerge(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, schema, obj, patch, want string }{
		{"list merged by key", podLike,
			`{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"1"}]}}`,
			`{"spec":{"containers":[{"name":"b","image":"2"}]}}`,
			`{"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}}`},
		{"item deleted by key", podLike,
			`{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`,
			`{"spec":{"containers":[{"name":"a","$patch":"delete"}]}}`,
			`{"spec":{"containers":[{"name":"b"}]}}`},
		{"list without a strategy replaced", podLike,
			`{"spec":{"args":["x","y"]}}`, `{"spec":{"args":["z"]}}`, `{"spec":{"args":["z"]}}`},
		{"finalizers merged as ObjectMeta's", "",
			`{"metadata":{"finalizers":["a"]}}`, `{"metadata":{"finalizers":["b"]}}`, `{"metadata":{"finalizers":["b","a"]}}`}, // the library's order, kube-apiserver's
		{"no schema: lists replaced", "",
			`{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"name":"b"}]}}`, `{"spec":{"containers":[{"name":"b"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var schema []byte
			if tt.schema != "" {
				schema = []byte(tt.schema)
			}
			got, err := StrategicMerge([]byte(tt.obj), []byte(tt.patch), schema)
			if err != nil {
				t.Fatal(err)
			}
			if !jsoneq.Equal(got, []byte(tt.want)) {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestStrategicMergeRefused: a patch that is not an object is a 400.
func TestStrategicMergeRefused(t *testing.T) {
	t.Parallel()
	for _, p := range []string{`[]`, `"x"`, `{"spec":{"containers":[{"image":"no name"}]}}`} {
		_, err := StrategicMerge([]byte(`{"spec":{"containers":[{"name":"a"}]}}`), []byte(p), []byte(podLike))
		if engine.ErrorCode(err) != engine.CodeBadRequest {
			t.Errorf("%s: %v, want a BadRequest", p, err)
		}
	}
}

func TestDeclaresStrategies(t *testing.T) {
	t.Parallel()
	if !DeclaresStrategies([]byte(podLike)) || DeclaresStrategies([]byte(`{"type":"object"}`)) {
		t.Error("DeclaresStrategies: want true for podLike only")
	}
}

// FuzzStrategicMerge: a strategic merge patch on an object applies or is
// refused with a 400, never a panic, and what applies is JSON.
func FuzzStrategicMerge(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"spec":{"containers":[{"name":"a","image":"1"}]}}`, `{"spec":{"containers":[{"name":"a","$patch":"delete"}]}}`},
		{`{"metadata":{"finalizers":["a"]}}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}}`},
		{`{"spec":{"args":["x"]}}`, `{"spec":{"$retainKeys":["args"],"args":null}}`},
		{`{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"$setElementOrder/containers":[{"name":"b"}]}}`},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, obj, patch []byte) {
		if !json.Valid(obj) || !json.Valid(patch) {
			return
		}
		out, err := StrategicMerge(obj, patch, []byte(podLike))
		if err != nil {
			if engine.ErrorCode(err) != engine.CodeBadRequest {
				t.Fatalf("StrategicMerge(%s, %s): %v", obj, patch, err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("StrategicMerge(%s, %s) = %s: not JSON", obj, patch, out)
		}
	})
}
