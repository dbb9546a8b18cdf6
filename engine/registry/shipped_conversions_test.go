package registry

import (
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/convert"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// The conversion examples live in conversions/testdata/<case>/, an object
// in.json and the same object converted, want.json, as the user sees it:
// pruned by the target version's schema. The kind and the versions are
// the objects' own apiVersion and kind.
func TestShippedConversionExamples(t *testing.T) {
	t.Parallel()
	snap := loadShipped(t)
	cases, err := fs.Glob(shippedConversions, "testdata/*/in.json")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no conversion examples found: %v", err)
	}
	for _, in := range cases {
		dir := path.Dir(in)
		t.Run(path.Base(dir), func(t *testing.T) {
			t.Parallel()
			obj, want := readExample(t, in), readExample(t, path.Join(dir, "want.json"))
			group, from, kind := typeOf(t, obj)
			_, to, _ := typeOf(t, want)
			r, ok := snap.ResourceByKind(group, kind)
			if !ok {
				t.Fatalf("no kind %s in %s", kind, group)
			}
			got, err := r.Conversion.Convert(obj, from, to)
			if err != nil {
				t.Fatal(err)
			}
			v, _ := r.Version(to)
			got, _ = v.Schema.Prune(got)
			if !jsoneq.Equal(got, want) {
				t.Errorf("%s → %s:\n got %s\nwant %s", from, to, got, want)
			}
		})
	}
}

func readExample(t *testing.T, file string) []byte {
	t.Helper()
	b, err := fs.ReadFile(shippedConversions, file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// typeOf reads an object's group, version and kind.
func typeOf(t *testing.T, obj []byte) (group, version, kind string) {
	t.Helper()
	var head struct{ APIVersion, Kind string }
	if err := json.Unmarshal(obj, &head); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	group, version = engine.ParseAPIVersion(head.APIVersion)
	return group, version, head.Kind
}

// The way storage keeps what a version cannot show: a Pipe written in v2,
// read in v1, changed there and written back keeps what v1 never showed,
// and takes every change the user made.
func TestShippedPipeUpdateThroughV1(t *testing.T) {
	t.Parallel()
	snap := loadShipped(t)
	r, _ := snap.ResourceByKind("plumbing.example.com", "Pipe")
	v1, _ := r.Version("v1")
	prune := func(b []byte) ([]byte, error) { out, _ := v1.Schema.Prune(b); return out, nil }
	stored := readExample(t, "testdata/pipe-v2-to-v1/in.json")
	projected, err := r.Conversion.Project(stored, "v2", "v1", prune)
	if err != nil {
		t.Fatal(err)
	}
	remainder := convert.Remainder(stored, projected)
	tests := []struct {
		name, old, new string // the edit the user makes to what v1 shows
		want           string // the stored object after the update
	}{
		{"nothing changed", "", "", string(stored)},
		{"owner changed", `"owner":"team-water"`, `"owner":"team-gas"`,
			strings.Replace(string(stored), `"maintainer": "team-water"`, `"maintainer": "team-gas"`, 1)},
		{"outlet changed", `"outlet":"north-valve"`, `"outlet":"south-valve"`,
			strings.Replace(string(stored), `["north-valve", "east-valve"]`, `["south-valve"]`, 1)},
		{"pressure changed", `"pressure":7`, `"pressure":8`, strings.Replace(string(stored), `"pressure": 6.5`, `"pressure": 8`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			view, _ := r.Conversion.Convert(stored, "v2", "v1")
			view, _ = v1.Schema.Prune(view)
			edited := []byte(strings.Replace(string(view), tt.old, tt.new, 1))
			if tt.old != "" && string(edited) == string(view) {
				t.Fatalf("the view lacks %s: %s", tt.old, view)
			}
			written, err := r.Conversion.Convert(edited, "v1", "v2")
			if err != nil {
				t.Fatal(err)
			}
			got, err := convert.Restore(written, remainder)
			if err != nil {
				t.Fatal(err)
			}
			if !jsoneq.Equal(got, []byte(tt.want)) {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
