package crd

import (
	"strings"
	"testing"
	"testing/fstest"
)

// What makes a definition through the API match the definition file that
// serves its kind: the same group, names, scope and versions (served,
// storage, schema); anything else is a difference that names its field.
func TestDifferencesFromAFile(t *testing.T) {
	file := crdJSON("toys.example.com", "robots", "Robot", "rb")
	snap := newDefinitions(t, fstest.MapFS{"robots.json": {Data: file}}).Load()
	tests := []struct {
		name string
		edit func(string) string
		want string // a substring of the differences; "" for none
	}{
		{"the file's own", func(s string) string { return s }, ""},
		{"another short name", func(s string) string { return strings.Replace(s, `["rb"]`, `["rob"]`, 1) }, "spec.names"},
		{"cluster scope", func(s string) string { return strings.Replace(s, `"Namespaced"`, `"Cluster"`, 1) }, "spec.scope: Namespaced in the definition file, Cluster here"},
		{"another version", func(s string) string { return strings.Replace(s, `"name":"v1"`, `"name":"v2"`, 1) }, "spec.versions: [v1] in the definition file, [v2] here"},
		{"another schema", func(s string) string {
			return strings.Replace(s, `"x-kubernetes-preserve-unknown-fields":true`, `"x-kubernetes-preserve-unknown-fields":true,"description":"d"`, 1)
		}, "spec.versions[v1].schema differs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := []byte(tt.edit(string(file)))
			r, ok := fileKind(snap, obj)
			if !ok {
				t.Fatal("no file serves robots.toys.example.com")
			}
			got := strings.Join(differences(r, obj), "; ")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Fatalf("differences = %q, want %q", got, tt.want)
			}
			if _, served := servedByFile(snap, new(Controller).definitionOf(obj)); served != (tt.want == "") {
				t.Fatalf("servedByFile = %t", served)
			}
		})
	}
}
