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

// TestCheckAdmissionPolicyFiles: `dynapi check` refuses the admission
// policy files serve would refuse, naming the file, the document's line
// and kube's reason.
func TestCheckAdmissionPolicyFiles(t *testing.T) {
	static, err := os.ReadFile("testdata/policies/static.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file string
		want       string // "": check passes
	}{
		{"good", string(static), ""},
		{"expression", strings.Replace(string(static), `expression: "false"`, `expression: "false +"`, 1),
			`static.yaml:16: ValidatingAdmissionPolicy frozen-policies.static.k8s.io: spec.validations[0].expression: Invalid value: "false +": compilation failed`},
		{"name", strings.Replace(string(static), "name: frozen-policies.static.k8s.io\n", "name: frozen-policies\n", 1),
			`static.yaml:16: ValidatingAdmissionPolicy frozen-policies: metadata.name: Invalid value: "frozen-policies": must end with ".static.k8s.io" in a file`},
		{"binding of nothing", string(static) + "\n---\n" + strings.Replace(strings.Split(string(static), "\n---\n")[3], "policyName: frozen", "policyName: melted", 1) + "\n",
			`ValidatingAdmissionPolicyBinding frozen-policies.static.k8s.io: a second ValidatingAdmissionPolicyBinding of that name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "static.yaml"), []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			err := check(Config{Schemas: dir, Conversions: t.TempDir()}, &out, io.Discard)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("check: %v\n%s", err, out.String())
				}
				return
			}
			if err == nil || !strings.Contains(out.String(), tt.want) {
				t.Errorf("check: %v\n%s\nwant %q", err, out.String(), tt.want)
			}
		})
	}
}
