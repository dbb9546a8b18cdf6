package openapi

import (
	"encoding/json"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// TestKindModelV2Root: as kube's builder publishes a kind in Swagger 2.0,
// a root that keeps unknown fields (a CRD "without validation schema",
// crd_publish_openapi.go) is an object and nothing more; any other root
// keeps its fields and gains metadata.
func TestKindModelV2Root(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"root keeps unknown fields", `{type: object, x-kubernetes-preserve-unknown-fields: true, properties: {spec: {type: object}}}`,
			`{"type":"object","x-kubernetes-group-version-kind":[{"group":"empty.example.com","version":"v1","kind":"Empty"}]}`},
		{"structural root", `{type: object, description: d, properties: {spec: {type: object}}}`,
			`{"type":"object","description":"d","properties":{"spec":{"type":"object"},` +
				`"metadata":{"$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}},` +
				`"x-kubernetes-group-version-kind":[{"group":"empty.example.com","version":"v1","kind":"Empty"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := load(t, nil, map[string]string{"empty.yaml": "group: empty.example.com\nkind: Empty\nplural: empties\nscope: Namespaced\n" +
				"versions:\n- name: v1\n  storage: true\n  schema: " + tt.schema + "\n"})
			r := snap.Resources()[0]
			v, _ := r.Version("v1")
			model, err := kindModelV2(r, v)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(model)
			jsoneq.Assert(t, got, tt.want)
		})
	}
}
