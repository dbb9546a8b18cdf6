package registry

import (
	"os"
	"testing"
	"testing/fstest"
)

// FuzzLoad: any definition file (here: random CRD YAML) loads or is
// reported as a problem, never a panic; and it loads beside the shipped
// Widget definition without breaking it.
func FuzzLoad(f *testing.F) {
	for _, file := range []string{"../../schemas/labs.example.com/widget-crd.yaml", "../../schemas/shop.example.com/widget.yaml",
		"../builtin/definitions/core/namespace.yaml", "../../schemas/plumbing.example.com/pipe.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {group: a.b, names: {kind: A, plural: as}, scope: Cluster, versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]}\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, _ := Load(fstest.MapFS{"fuzz.example.com/thing.yaml": {Data: data}}, fstest.MapFS{})
		if snap == nil {
			t.Fatal("Load returned no snapshot")
		}
	})
}
