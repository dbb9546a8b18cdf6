package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A kind without conversion rules whose versions differ is served by
// apiVersion alone, as kube-apiserver's conversion None serves it: check
// warns of what the conversion loses, and agrees with serve that the
// definition is fine.
func TestCheckWarnsOfKindsWithoutRules(t *testing.T) {
	dir := t.TempDir()
	def := `group: shop.example.com
kind: Route
plural: routes
scope: Namespaced
versions:
- {name: v1, storage: true, schema: {type: object, properties: {spec: {type: object, properties: {rules: {type: array, maxItems: 1, items: {type: string}}}}}}}
- {name: v1alpha1, schema: {type: object, properties: {spec: {type: object, properties: {rules: {type: array, items: {type: string}}}}}}}
`
	if err := os.WriteFile(filepath.Join(dir, "route.yaml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	err := check(Config{Schemas: dir, Conversions: t.TempDir()}, &out, io.Discard)
	if err != nil || !strings.Contains(out.String(), "warning: ") || !strings.Contains(out.String(), "route.yaml: spec.rules: v1alpha1 → v1") {
		t.Errorf("check: %v\n%s", err, out.String())
	}
}
