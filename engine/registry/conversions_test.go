package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// pipeSchemas defines Pipe in two versions that differ, beside gadget.
var pipeSchemas = fstest.MapFS{
	"a/gadget.yaml": {Data: []byte(gadget)},
	"b/pipe.yaml": {Data: []byte(`group: test.example.com
kind: Pipe
plural: pipes
scope: Namespaced
versions:
- name: v1
  schema: {type: object, properties: {spec: {type: object, properties: {
    diameter: {type: integer}, material: {type: string}, pressure: {type: integer}}}}}
- name: v2
  storage: true
  schema: {type: object, properties: {spec: {type: object, properties: {
    size: {type: object, properties: {diameter: {type: integer}}}, material: {type: string}, pressure: {type: number}}}}}
`)},
}

const pipeRules = `group: test.example.com
kind: Pipe
hub: v2
versions:
  v1:
    toHub:
    - move: {from: spec.diameter, to: spec.size.diameter}
    - mapValues: {path: spec.material, values: {steel: Steel, copper: Copper}}
    - coerce: {path: spec.pressure, to: number}
`

func loadPipe(t *testing.T, rules fstest.MapFS) (*Snapshot, []Problem) {
	t.Helper()
	return loadFiles(pipeSchemas, rules)
}

func TestLoadConversionRules(t *testing.T) {
	t.Parallel()
	snap, problems := loadPipe(t, fstest.MapFS{"test.example.com/pipe.yaml": {Data: []byte(pipeRules)}})
	if len(problems) > 0 {
		t.Fatalf("problems:\n%s", problemList(problems))
	}
	r, ok := snap.ResourceByKind("test.example.com", "Pipe")
	if !ok || r.Conversion == nil || r.ConversionFile != "test.example.com/pipe.yaml" {
		t.Fatalf("Pipe has no rules: %+v", r)
	}
	got, err := r.Conversion.Convert([]byte(`{"apiVersion":"test.example.com/v2","kind":"Pipe","spec":{"size":{"diameter":5},"material":"Steel","pressure":2.5}}`), "v2", "v1")
	if err != nil {
		t.Fatal(err)
	}
	// Bind told coerce that v1's pressure is an integer.
	if want := `{"apiVersion":"test.example.com/v1","kind":"Pipe","spec":{"material":"steel","pressure":3,"diameter":5}}`; string(got) != want {
		t.Errorf("v2 → v1:\n got %s\nwant %s", got, want)
	}
	if g, _ := snap.ResourceByKind("test.example.com", "Gadget"); g.Conversion != nil {
		t.Error("a kind without a rules file has rules")
	}
}

func TestLoadConversionProblems(t *testing.T) {
	t.Parallel()
	const file = "test.example.com/pipe.yaml"
	rule := func(old, new string) string { return strings.Replace(pipeRules, old, new, 1) }
	tests := []struct {
		name     string
		content  string
		contains string
		line     int
		refused  bool // Pipe is refused
		warning  bool // the problem is a warning: nothing is refused
	}{
		{"path the schema lacks", rule("from: spec.diameter", "from: spec.diametr"), `Pipe.test.example.com: versions.v1.toHub[0]: move: from "spec.diametr": v1 has no such field`, 0, true, false},
		{"path the hub lacks", rule("to: spec.size.diameter", "to: spec.size.diam"), `versions.v1.toHub[0]: move: to "spec.size.diam": v2 (the hub) has no such field`, 0, true, false},
		{"mapValues not a bijection", rule("copper: Copper", "copper: Steel"), `versions.v1.toHub[1]: mapValues: values are not a bijection: "copper" and "steel" both map to "Steel"`, 0, true, false},
		{"unknown rule", rule("- coerce:", "- cast:"), `versions.v1.toHub[2]: unknown rule "cast"`, 0, true, false},
		{"hub not a version", rule("hub: v2", "hub: v3"), `Pipe.test.example.com: hub: "v3" is not a version of Pipe (versions: v1, v2)`, 0, true, false},
		{"version not a version", rule("  v1:", "  v0:"), "versions.v0: no such version of Pipe", 0, true, false},
		{"rules for a missing kind", rule("kind: Pipe", "kind: Tube"), "Tube.test.example.com: no such kind is loaded", 0, false, true},
		{"broken rules for a missing kind", rule("kind: Pipe", "kind: Tube") + "    - cast: {}\n", `Tube.test.example.com: versions.v1.toHub[3]: unknown rule "cast"`, 0, false, false},
		{"no hub", rule("hub: v2\n", ""), "Pipe.test.example.com: hub: is required", 0, true, false},
		{"yaml syntax", rule("hub: v2", "hub: [v2"), "invalid YAML", 3, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			snap, problems := loadPipe(t, fstest.MapFS{file: {Data: []byte(tt.content)}})
			if !hasRulesProblem(problems, file, tt.line, tt.contains) {
				t.Errorf("want a problem in %s containing %q, got:\n%s", file, tt.contains, problemList(problems))
			}
			for _, p := range problems {
				if strings.Contains(p.Reason, tt.contains) && p.Warning != tt.warning {
					t.Errorf("%s: Warning = %v, want %v", p, p.Warning, tt.warning)
				}
			}
			if _, _, ok := snap.Lookup("test.example.com", "v1", "gadgets"); !ok {
				t.Error("the kind beside did not load")
			}
			_, _, loaded := snap.Lookup("test.example.com", "v1", "pipes")
			if loaded == tt.refused {
				t.Errorf("Pipe loaded = %v, want %v:\n%s", loaded, !tt.refused, problemList(problems))
			}
			if tt.refused && !hasProblem(problems, "b/pipe.yaml", 0, "Pipe.test.example.com: refused: its conversion rules in "+file+" were refused") {
				t.Errorf("the definition's problem is missing:\n%s", problemList(problems))
			}
		})
	}
}

// A conversions folder that does not exist is no rules: a warning, as
// serve starts before the folder is made; the kinds load.
func TestLoadWithoutConversionsFolder(t *testing.T) {
	t.Parallel()
	snap, problems := LoadWith(pipeSchemas, os.DirFS(filepath.Join(t.TempDir(), "nowhere")), LoadOptions{WithoutBuiltins: true})
	if len(problems) != 1 || !problems[0].Warning || !problems[0].Conversion || Failures(problems) != 0 {
		t.Fatalf("problems: %+v; want one warning", problems)
	}
	if _, _, ok := snap.Lookup("test.example.com", "v1", "pipes"); !ok {
		t.Error("Pipe did not load")
	}
}

// A second rules file for a kind is refused alone; the first one serves.
func TestLoadConversionRulesTwice(t *testing.T) {
	t.Parallel()
	snap, problems := loadPipe(t, fstest.MapFS{
		"a.yaml": {Data: []byte(pipeRules)},
		"b.yaml": {Data: []byte(pipeRules)},
	})
	if !hasRulesProblem(problems, "b.yaml", 0, "Pipe.test.example.com: the kind's rules are already given in a.yaml") || len(problems) != 1 {
		t.Errorf("problems:\n%s", problemList(problems))
	}
	if r, ok := snap.ResourceByKind("test.example.com", "Pipe"); !ok || r.ConversionFile != "a.yaml" {
		t.Errorf("Pipe: %v, %+v", ok, r)
	}
}

// Rules files are found like definition files, and each document of a
// file is loaded.
func TestLoadConversionFiles(t *testing.T) {
	t.Parallel()
	_, problems := loadPipe(t, fstest.MapFS{
		"test.example.com/pipe.yaml": {Data: []byte(pipeRules)},
		"testdata/case/in.json":      {Data: []byte("{{{")},
		"README.md":                  {Data: []byte("{{{")},
		"multi.yaml":                 {Data: []byte("kind: A\n---\nkind: B\n")},
	})
	if len(problems) != 4 {
		t.Fatalf("problems:\n%s", problemList(problems))
	}
	if !hasRulesProblem(problems, "multi.yaml", 3, "B: group: is required") {
		t.Errorf("a problem of the second document must name its line:\n%s", problemList(problems))
	}
}

func hasRulesProblem(problems []Problem, file string, line int, contains string) bool {
	for _, p := range problems {
		if p.Conversion && p.File == file && (line == 0 || p.Line == line) && strings.Contains(p.Reason, contains) {
			return true
		}
	}
	return false
}
