package crd

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tidwall/sjson"
)

// The definition published for a file's kind matches the file (so its
// status is the file's: Established, DefinitionFile) for a kind with
// printer columns, subresources, selectable fields and several versions,
// as the repository's own definition files declare them.
func TestFileDefinitionMatchesItsFile(t *testing.T) {
	snap := newDefinitions(t, fstest.MapFS{
		"widget.yaml":     {Data: mustRead(t, "../../../schemas/shop.example.com/widget.yaml")},
		"widget-crd.yaml": {Data: mustRead(t, "../../../schemas/labs.example.com/widget-crd.yaml")},
	}).Load()
	kinds := fileKinds(snap)
	if len(kinds) != 2 {
		t.Fatalf("file kinds: %d, want 2", len(kinds))
	}
	for _, r := range kinds {
		t.Run(r.GroupResource().String(), func(t *testing.T) {
			obj := fileDefinition(r)
			if causes, _ := Check(obj); len(causes) > 0 {
				t.Fatalf("Check refuses it: %v", causes)
			}
			if diff := differences(r, obj); len(diff) > 0 {
				t.Fatalf("it differs from its file: %v", diff)
			}
			if got := annotatedFile(obj); got != r.File {
				t.Fatalf("annotation %q, want %q", got, r.File)
			}
		})
	}
}

// The FileAnnotation is the server's: while a file serves the kind it
// names that file, or is absent from a definition never published; once
// the file is gone it stays as it was.
func TestCheckFileAnnotation(t *testing.T) {
	file := crdJSON("toys.example.com", "robots", "Robot", "rb")
	snap := newDefinitions(t, fstest.MapFS{"robots.json": {Data: file}}).Load()
	other := crdJSON("toys.example.com", "dolls", "Doll")
	annotate := func(obj []byte, v string) []byte {
		out, err := sjson.SetBytes(obj, "metadata.annotations.dynapi\\.dev/definition-file", v)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name     string
		obj, old []byte
		refused  string // a substring of the refusal; "" lets it pass
	}{
		{"published", annotate(file, "robots.json"), nil, ""},
		{"applied, not yet published", file, nil, ""},
		{"adopted", annotate(file, "robots.json"), file, ""},
		{"kept", annotate(file, "robots.json"), annotate(file, "robots.json"), ""},
		{"another file named", annotate(file, "mine.yaml"), nil, `Invalid value: "mine.yaml": set by the server: it must be "robots.json"`},
		{"removed", file, annotate(file, "robots.json"), `set by the server: it must be "robots.json"`},
		{"no file serves it", annotate(other, "robots.json"), nil, `it must be ""`},
		{"its file gone, kept", annotate(other, "dolls.json"), annotate(other, "dolls.json"), ""},
		{"its file gone, changed", annotate(other, "x.json"), annotate(other, "dolls.json"), `it must be "dolls.json"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			causes := checkFileAnnotation(snap, tt.obj, tt.old)
			if tt.refused == "" {
				if len(causes) > 0 {
					t.Fatalf("refused: %v", causes)
				}
				return
			}
			if len(causes) != 1 || causes[0].Path != "metadata.annotations[dynapi.dev/definition-file]" || !strings.Contains(causes[0].Message, tt.refused) {
				t.Fatalf("causes %v, want one on metadata.annotations[dynapi.dev/definition-file] saying %q", causes, tt.refused)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
