package crd

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The definition published for a file's kind matches the file (so its
// status is the file's: Established, DefinitionFile) for a kind with
// printer columns, subresources, selectable fields and several versions,
// as the repository's own definition files declare them, and for one in
// a protected group, which definition files may declare without approval.
func TestFileDefinitionMatchesItsFile(t *testing.T) {
	snap := newDefinitions(t, fstest.MapFS{
		"widget.yaml":     {Data: mustRead(t, "../../../schemas/shop.example.com/widget.yaml")},
		"widget-crd.yaml": {Data: mustRead(t, "../../../schemas/labs.example.com/widget-crd.yaml")},
		"gateway.json":    {Data: crdJSON("gateway.networking.k8s.io", "gateways", "Gateway")}, // a protected group
	}).Load()
	kinds := fileKinds(snap)
	if len(kinds) != 3 {
		t.Fatalf("file kinds: %d, want 3", len(kinds))
	}
	for _, r := range kinds {
		t.Run(r.GroupResource().String(), func(t *testing.T) {
			obj, hash := fileDefinition(r)
			if causes, _ := Check(obj); len(causes) > 0 {
				t.Fatalf("Check refuses it: %v", causes)
			}
			if causes := checkApproval(obj, nil); len(causes) > 0 {
				t.Fatalf("it lacks the approval of a protected group: %v", causes)
			}
			if diff := differences(r, obj); len(diff) > 0 {
				t.Fatalf("it differs from its file: %v", diff)
			}
			if got := annotatedFile(obj); got != r.File {
				t.Fatalf("annotation %q, want %q", got, r.File)
			}
			if again, _ := fileDefinition(r); annotatedHash(obj) != hash || string(again) != string(obj) {
				t.Fatalf("hash %q, want %q, the same definition from the same file", annotatedHash(obj), hash)
			}
		})
	}
}

// The published annotations are the server's: while a file serves the
// kind FileAnnotation names that file, or is absent from a definition
// never published, and HashAnnotation changes only to the file's hash;
// once the file is gone both stay as they were.
func TestCheckPublished(t *testing.T) {
	file := crdJSON("toys.example.com", "robots", "Robot", "rb")
	snap := newDefinitions(t, fstest.MapFS{"robots.json": {Data: file}}).Load()
	_, hash := fileDefinition(fileKinds(snap)[0])
	other := crdJSON("toys.example.com", "dolls", "Doll")
	annotate := func(obj []byte, kv ...string) []byte {
		for i := 0; i < len(kv); i += 2 {
			var err error
			if obj, err = sjson.SetBytes(obj, "metadata.annotations."+gjson.Escape(kv[i]), kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		return obj
	}
	published := annotate(file, FileAnnotation, "robots.json", HashAnnotation, hash)
	const fileCause, hashCause = "metadata.annotations[dynapi.dev/definition-file]", "metadata.annotations[dynapi.dev/definition-sha256]"
	tests := []struct {
		name     string
		obj, old []byte
		path     string // the field refused; "" lets it pass
		refused  string // a substring of the refusal
	}{
		{"published", published, nil, "", ""},
		{"applied, not yet published", file, nil, "", ""},
		{"adopted", published, file, "", ""},
		{"kept", published, published, "", ""},
		{"labelled", annotate(published, "x", "y"), published, "", ""},
		{"overwritten by another version of the file", published, annotate(file, FileAnnotation, "robots.json", HashAnnotation, "v1"), "", ""},
		{"another file named", annotate(file, FileAnnotation, "mine.yaml", HashAnnotation, hash), nil, fileCause,
			`Invalid value: "mine.yaml": set by the server: it must be "robots.json"`},
		{"removed", annotate(file, HashAnnotation, hash), published, fileCause, `set by the server: it must be "robots.json"`},
		{"another hash", annotate(published, HashAnnotation, "mine"), published, hashCause, `Invalid value: "mine": set by the server: it must be "` + hash + `"`},
		{"no file serves it", annotate(other, FileAnnotation, "robots.json"), nil, fileCause, `it must be ""`},
		{"its file gone, kept", annotate(other, FileAnnotation, "dolls.json", HashAnnotation, "h"), annotate(other, FileAnnotation, "dolls.json", HashAnnotation, "h"), "", ""},
		{"its file gone, changed", annotate(other, FileAnnotation, "x.json", HashAnnotation, "h"), annotate(other, FileAnnotation, "dolls.json", HashAnnotation, "h"), fileCause, `it must be "dolls.json"`},
		{"its file gone, hash changed", annotate(other, FileAnnotation, "dolls.json", HashAnnotation, "g"), annotate(other, FileAnnotation, "dolls.json", HashAnnotation, "h"), hashCause, `it must be "h"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			causes := checkPublished(snap, tt.obj, tt.old)
			if tt.path == "" {
				if len(causes) > 0 {
					t.Fatalf("refused: %v", causes)
				}
				return
			}
			if len(causes) != 1 || causes[0].Path != tt.path || !strings.Contains(causes[0].Message, tt.refused) {
				t.Fatalf("causes %v, want one on %s saying %q", causes, tt.path, tt.refused)
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
