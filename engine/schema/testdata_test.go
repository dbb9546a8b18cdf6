package schema

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

var update = flag.Bool("update", false, "rewrite the testdata want files from the current output")

// TestTestdata runs every case under testdata/<case>/: schema.json is
// compiled, then each object goes through the write path (Prune, Default,
// Validate). valid/*.json must pass; invalid/<name>.json must fail with the
// causes in invalid/<name>.want.json; pipeline/<name>.json must turn into
// the object and removed paths of pipeline/<name>.want.json. Adding a case
// is adding files; `go test -run TestTestdata -update` writes the want
// files from the current output, to review before committing.
func TestTestdata(t *testing.T) {
	schemas, err := filepath.Glob("testdata/*/schema.json")
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no testdata cases: %v", err)
	}
	for _, file := range schemas {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			s, err := Compile(readFile(t, file))
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			for _, in := range inputs(t, dir, "valid") {
				if got := toCauses(writePath(s, readFile(t, in))); len(got) > 0 {
					t.Errorf("%s: want valid, got %s", in, mustJSON(got))
				}
			}
			for _, in := range inputs(t, dir, "invalid") {
				got := toCauses(writePath(s, readFile(t, in)))
				if len(got) == 0 {
					t.Errorf("%s: want invalid, got valid", in)
				}
				compareWant(t, in, got)
			}
			for _, in := range inputs(t, dir, "pipeline") {
				pruned, removed := s.Prune(readFile(t, in))
				defaulted, err := s.Default(pruned)
				if err != nil {
					t.Fatalf("%s: Default: %v", in, err)
				}
				compareWant(t, in, pipelineResult{Object: defaulted, Removed: removed})
			}
		})
	}
}

// pipelineResult is the want file of a pipeline case.
type pipelineResult struct {
	Object  json.RawMessage `json:"object"`
	Removed []string        `json:"removed"`
}

// cause is one expected field error in a want file.
type cause struct {
	Type    string `json:"type"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// writePath runs an object through what the server does on every write.
func writePath(s *Schema, obj []byte) []engine.FieldError {
	pruned, _ := s.Prune(obj)
	defaulted, err := s.Default(pruned)
	if err != nil {
		return []engine.FieldError{{Message: err.Error()}}
	}
	return s.Validate(defaulted)
}

func toCauses(errs []engine.FieldError) []cause {
	out := []cause{}
	for _, e := range errs {
		out = append(out, cause{Type: e.Type, Field: e.Path, Message: e.Message})
	}
	return out
}

// inputs lists the inputs of a testdata folder, leaving out want files.
func inputs(t *testing.T, dir, kind string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, kind, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".want.json") {
			out = append(out, f)
		}
	}
	return out
}

// compareWant compares got with the want file beside in, semantically as JSON.
func compareWant(t *testing.T, in string, got any) {
	t.Helper()
	wantFile := strings.TrimSuffix(in, ".json") + ".want.json"
	gotJSON := mustJSON(got)
	if *update {
		if err := os.WriteFile(wantFile, append(gotJSON, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := readFile(t, wantFile); !jsoneq.Equal(gotJSON, want) {
		t.Errorf("%s: differs at %s\n got %s\nwant %s", in, jsoneq.Diff(gotJSON, want), gotJSON, want)
	}
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}
