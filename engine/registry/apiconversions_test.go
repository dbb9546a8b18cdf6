package registry

import (
	"testing"
	"testing/fstest"

	"sigs.k8s.io/yaml"
)

// Rules created through the API convert a kind that has no rules file, are
// refused like a file's when they do not fit its schemas, and give way to a
// rules file for the same kind, with a warning naming it.
func TestLoadAPIConversions(t *testing.T) {
	t.Parallel()
	rules, err := yaml.YAMLToJSON([]byte(pipeRules))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := yaml.YAMLToJSON([]byte(pipeRules + "    - move: {from: spec.nope, to: spec.x}\n"))
	if err != nil {
		t.Fatal(err)
	}
	const file = APIRulesPrefix + "pipe.test.example.com"
	tests := []struct {
		name        string
		files       fstest.MapFS
		api         []byte
		wantRulesOf string // the ConversionFile of Pipe; "": Pipe not served
		warning     bool
		problem     string // in a problem of file
	}{
		{"applied", fstest.MapFS{}, rules, file, false, ""},
		{"refused", fstest.MapFS{}, bad, "", false, `move: from "spec.nope": v1 has no such field`},
		{"a file wins", fstest.MapFS{"test.example.com/pipe.yaml": {Data: []byte(pipeRules)}}, rules,
			"test.example.com/pipe.yaml", true, RulesOverridden + " test.example.com/pipe.yaml, which wins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			snap, problems := LoadWith(pipeSchemas, tt.files, LoadOptions{WithoutBuiltins: true,
				APIConversions: map[string][]byte{"pipe.test.example.com": tt.api}})
			r, ok := snap.ResourceByKind("test.example.com", "Pipe")
			switch {
			case tt.wantRulesOf == "" && ok:
				t.Errorf("Pipe served with rules of %q", r.ConversionFile)
			case tt.wantRulesOf != "" && (!ok || r.ConversionFile != tt.wantRulesOf):
				t.Errorf("Pipe served: %v; want with the rules of %s; problems:\n%s", ok, tt.wantRulesOf, problemList(problems))
			}
			if tt.problem == "" {
				if len(problems) > 0 {
					t.Errorf("problems:\n%s", problemList(problems))
				}
				return
			}
			if !hasRulesProblem(problems, file, 0, tt.problem) {
				t.Errorf("no problem %q of %s in:\n%s", tt.problem, file, problemList(problems))
			}
			for _, p := range problems {
				if p.File == file && p.Warning != tt.warning {
					t.Errorf("problem %q: warning %v, want %v", p.Reason, p.Warning, tt.warning)
				}
			}
		})
	}
}
