package crd

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/reload"
)

var _ Definitions = (*reload.Reloader)(nil)

// newDefinitions returns a Reloader of a copy of the definition files in
// fsys, loaded; it fails the test if any has a problem.
func newDefinitions(t *testing.T, fsys fs.FS) *reload.Reloader {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	r := reload.New(dir, "", reload.Options{})
	if err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	if problems := r.Problems(); len(problems) > 0 {
		t.Fatalf("definition files have problems: %v", problems)
	}
	return r
}

// crdJSON builds a CustomResourceDefinition of a namespaced kind with one
// version, v1, that keeps every field.
func crdJSON(group, plural, kind string, shortNames ...string) []byte {
	short := "[]"
	if len(shortNames) > 0 {
		short = `["` + strings.Join(shortNames, `","`) + `"]`
	}
	return fmt.Appendf(nil, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":%q},"spec":{"group":%q,"scope":"Namespaced",
"names":{"plural":%q,"kind":%q,"shortNames":%s},
"versions":[{"name":"v1","served":true,"storage":true,
"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`,
		plural+"."+group, group, plural, kind, short)
}
