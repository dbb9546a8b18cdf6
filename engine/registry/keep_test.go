package registry

import (
	"errors"
	"io/fs"
	"maps"
	"strings"
	"testing"
	"testing/fstest"
)

// keepBase is what served before each case of TestLoadKeepsWhatWorked.
var keepBase = struct{ schemas, conversions map[string]string }{
	schemas: map[string]string{
		"a/gadget.yaml": gadget,
		"b/pipe.yaml":   string(pipeSchemas["b/pipe.yaml"].Data),
		"c/thing.yaml":  thing(),
	},
	conversions: map[string]string{"test.example.com/pipe.yaml": pipeRules},
}

// reload loads base, then base with edits ("" deletes a file) over it, and
// returns the second snapshot and its problems.
func reload(t *testing.T, schemaEdits, ruleEdits map[string]string, opts LoadOptions) (prev, next *Snapshot, problems []Problem) {
	t.Helper()
	prev, ps := loadFiles(mapFS(keepBase.schemas, nil), mapFS(keepBase.conversions, nil))
	if len(ps) > 0 {
		t.Fatalf("base problems:\n%s", problemList(ps))
	}
	opts.Previous = prev
	next, problems = LoadWith(mapFS(keepBase.schemas, schemaEdits), mapFS(keepBase.conversions, ruleEdits), opts)
	return prev, next, problems
}

func mapFS(files, edits map[string]string) fstest.MapFS {
	all := maps.Clone(files)
	maps.Copy(all, edits)
	fsys := fstest.MapFS{}
	for name, content := range all {
		if content != "" {
			fsys[name] = &fstest.MapFile{Data: []byte(content)}
		}
	}
	return fsys
}

// served lists a snapshot's resources as "plural file", marked stale when kept.
func served(snap *Snapshot) []string {
	var out []string
	for _, r := range snap.Resources() {
		s := r.Plural + " " + r.File
		if snap.Stale(r) {
			s += " stale"
		}
		out = append(out, s)
	}
	return out
}

func TestLoadKeepsWhatWorked(t *testing.T) {
	t.Parallel()
	const all = "gadgets a/gadget.yaml|pipes b/pipe.yaml|things c/thing.yaml"
	tests := []struct {
		name         string
		schemas      map[string]string
		rules        map[string]string
		want         string // served(), joined by "|"
		problemFile  string
		problemWords string
	}{
		{name: "syntax error", schemas: map[string]string{"c/thing.yaml": "group: [\n"},
			want: "gadgets a/gadget.yaml|pipes b/pipe.yaml|things c/thing.yaml stale", problemFile: "c/thing.yaml", problemWords: "invalid YAML"},
		{name: "invalid schema", schemas: map[string]string{"c/thing.yaml": thing("versions:\n" + versionDoc("v1", "  storage: true", "  schema: {type: objekt}"))},
			want: "gadgets a/gadget.yaml|pipes b/pipe.yaml|things c/thing.yaml stale", problemFile: "c/thing.yaml", problemWords: "schema"},
		{name: "two storage versions", schemas: map[string]string{"c/thing.yaml": thing("versions:\n" + versionDoc("v1", "  storage: true") + versionDoc("v2", "  storage: true"))},
			want: "gadgets a/gadget.yaml|pipes b/pipe.yaml|things c/thing.yaml stale", problemFile: "c/thing.yaml", problemWords: "exactly one version must be the storage version"},
		{name: "conflicting plural in a new file that sorts first", schemas: map[string]string{"0/other.yaml": thing("kind: Other")},
			want: all, problemFile: "0/other.yaml", problemWords: "already defined in c/thing.yaml"},
		{name: "names changed into another's", schemas: map[string]string{"c/thing.yaml": thing("shortNames: [gd]")},
			want: "gadgets a/gadget.yaml|pipes b/pipe.yaml|things c/thing.yaml stale", problemFile: "c/thing.yaml", problemWords: `shortName "gd" collides`},
		{name: "unknown rule", rules: map[string]string{"test.example.com/pipe.yaml": pipeRules + "    - frobnicate: {path: spec.x}\n"},
			want: "gadgets a/gadget.yaml|pipes b/pipe.yaml stale|things c/thing.yaml", problemFile: "test.example.com/pipe.yaml", problemWords: "frobnicate"},
		{name: "rules for a kind that does not exist", rules: map[string]string{"test.example.com/nothing.yaml": "group: test.example.com\nkind: Nothing\nhub: v1\n"},
			want: all, problemFile: "test.example.com/nothing.yaml", problemWords: "no such kind is loaded"},
		{name: "pipe definition broken, rules fine", schemas: map[string]string{"b/pipe.yaml": "kind: [\n"},
			want: "gadgets a/gadget.yaml|pipes b/pipe.yaml stale|things c/thing.yaml", problemFile: "b/pipe.yaml", problemWords: "invalid YAML"},
		{name: "removed file", schemas: map[string]string{"c/thing.yaml": ""},
			want: "gadgets a/gadget.yaml|pipes b/pipe.yaml"},
		{name: "new file", schemas: map[string]string{"d/other.yaml": thing("kind: Other", "plural: others")},
			want: "gadgets a/gadget.yaml|others d/other.yaml|pipes b/pipe.yaml|things c/thing.yaml"},
		{name: "changed file", schemas: map[string]string{"c/thing.yaml": thing("shortNames: [th]")}, want: all},
		{name: "definition moved to another file", schemas: map[string]string{"c/thing.yaml": "", "e/thing.yaml": thing()},
			want: "gadgets a/gadget.yaml|pipes b/pipe.yaml|things e/thing.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, snap, problems := reload(t, tt.schemas, tt.rules, LoadOptions{WithoutBuiltins: true})
			if got := strings.Join(served(snap), "|"); got != tt.want {
				t.Errorf("served:\n got %s\nwant %s", got, tt.want)
			}
			if tt.problemFile == "" && len(problems) > 0 {
				t.Errorf("problems:\n%s", problemList(problems))
			}
			if tt.problemFile != "" && !hasProblem(problems, tt.problemFile, 0, tt.problemWords) {
				t.Errorf("no problem in %s with %q:\n%s", tt.problemFile, tt.problemWords, problemList(problems))
			}
		})
	}
}

// A kept kind keeps its own rules, as they were.
func TestLoadKeepsRules(t *testing.T) {
	t.Parallel()
	prev, snap, _ := reload(t, map[string]string{"b/pipe.yaml": "kind: [\n"}, nil, LoadOptions{WithoutBuiltins: true})
	before, _ := prev.ResourceByKind("test.example.com", "Pipe")
	after, _ := snap.ResourceByKind("test.example.com", "Pipe")
	if after != before || after.Conversion == nil {
		t.Fatalf("Pipe not kept whole: %+v", after)
	}
}

// unreadable is an fs.FS in which one folder cannot be read.
type unreadable struct {
	fs.FS
	dir string
}

func (u unreadable) Open(name string) (fs.File, error) {
	if name == u.dir {
		return nil, errors.New("permission denied")
	}
	return u.FS.Open(name)
}

func TestLoadKeepsUnreadableFolders(t *testing.T) {
	t.Parallel()
	schemas, rules := mapFS(keepBase.schemas, nil), mapFS(keepBase.conversions, nil)
	prev, _ := loadFiles(schemas, rules)
	tests := []struct {
		name                string
		schemas, rules      fs.FS
		want, problemFolder string
	}{
		{"schemas root", unreadable{schemas, "."}, rules,
			"gadgets a/gadget.yaml stale|pipes b/pipe.yaml stale|things c/thing.yaml stale", "."},
		{"schemas folder", unreadable{schemas, "c"}, rules,
			"gadgets a/gadget.yaml|pipes b/pipe.yaml|things c/thing.yaml stale", "c"},
		{"conversions folder", schemas, unreadable{rules, "test.example.com"},
			"gadgets a/gadget.yaml|pipes b/pipe.yaml stale|things c/thing.yaml", "test.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			snap, problems := LoadWith(tt.schemas, tt.rules, LoadOptions{WithoutBuiltins: true, Previous: prev})
			if got := strings.Join(served(snap), "|"); got != tt.want {
				t.Errorf("served:\n got %s\nwant %s", got, tt.want)
			}
			if !hasProblem(problems, tt.problemFolder, 0, "permission denied") {
				t.Errorf("problems:\n%s", problemList(problems))
			}
		})
	}
}

func TestLoadAPIDefinitions(t *testing.T) {
	t.Parallel()
	apiThing := crdDoc("things.test.example.com", "test.example.com", "")
	prev, problems := LoadWith(fstest.MapFS{}, nil, LoadOptions{WithoutBuiltins: true, APIDefinitions: map[string][]byte{"things.test.example.com": []byte(apiThing)}})
	if got := strings.Join(served(prev), "|"); got != "things api/things.test.example.com" || len(problems) > 0 {
		t.Fatalf("served %s, problems:\n%s", got, problemList(problems))
	}
	tests := []struct {
		name         string
		files        fstest.MapFS
		api          string
		want         string
		problemWords string
	}{
		{"a file takes the names", fstest.MapFS{"thing.yaml": {Data: []byte(thing())}}, apiThing,
			"things thing.yaml", "definition files take precedence over definitions created through the API"},
		{"broken definition keeps serving", nil, strings.Replace(apiThing, "type: object", "type: objekt", 1),
			"things api/things.test.example.com stale", "schema"},
		{"removed", nil, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			defs := map[string][]byte{}
			if tt.api != "" {
				defs["things.test.example.com"] = []byte(tt.api)
			}
			snap, problems := LoadWith(tt.files, nil, LoadOptions{WithoutBuiltins: true, Previous: prev, APIDefinitions: defs})
			if got := strings.Join(served(snap), "|"); got != tt.want {
				t.Errorf("served:\n got %s\nwant %s", got, tt.want)
			}
			if tt.problemWords != "" && !hasProblem(problems, "api/things.test.example.com", 0, tt.problemWords) {
				t.Errorf("problems:\n%s", problemList(problems))
			}
		})
	}
}

func TestLoadCheckChange(t *testing.T) {
	t.Parallel()
	wider := thing("versions:\n" + versionDoc("v1", "  storage: true", "  schema: {type: object, properties: {spec: {type: object}}}"))
	tests := []struct {
		name    string
		schemas map[string]string
		refuse  bool
		asked   string // the kinds CheckChange was asked about
		want    string
	}{
		{"schema changed, accepted", map[string]string{"c/thing.yaml": wider}, false, "Thing",
			"gadgets a/gadget.yaml|pipes b/pipe.yaml|things c/thing.yaml"},
		{"schema changed, refused", map[string]string{"c/thing.yaml": wider}, true, "Thing",
			"gadgets a/gadget.yaml|pipes b/pipe.yaml|things c/thing.yaml stale"},
		{"names changed only", map[string]string{"c/thing.yaml": thing("shortNames: [th]")}, true, "",
			"gadgets a/gadget.yaml|pipes b/pipe.yaml|things c/thing.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var asked []string
			check := func(prev, next *Resource) []string {
				asked = append(asked, next.Kind)
				if tt.refuse {
					return []string{"2 stored objects would break"}
				}
				return nil
			}
			_, snap, problems := reload(t, tt.schemas, nil, LoadOptions{WithoutBuiltins: true, CheckChange: check})
			if got := strings.Join(asked, ","); got != tt.asked {
				t.Errorf("asked about %q, want %q", got, tt.asked)
			}
			if got := strings.Join(served(snap), "|"); got != tt.want {
				t.Errorf("served:\n got %s\nwant %s", got, tt.want)
			}
			if tt.refuse && tt.asked != "" && !hasProblem(problems, "c/thing.yaml", 0, "Thing.test.example.com: refused: 2 stored objects would break") {
				t.Errorf("problems:\n%s", problemList(problems))
			}
		})
	}
}

func TestSchemaChanges(t *testing.T) {
	t.Parallel()
	base, _ := loadFiles(mapFS(keepBase.schemas, nil), mapFS(keepBase.conversions, nil))
	otherRules := strings.Replace(pipeRules, "copper: Copper", "copper: Copper, tin: Tin", 1)
	pipeV2Only := strings.Replace(string(pipeSchemas["b/pipe.yaml"].Data), "pressure: {type: number}", "pressure: {type: integer}", 1)
	tests := []struct {
		name           string
		schemas, rules map[string]string
		want           string
	}{
		{"nothing", nil, nil, ""},
		{"one version's schema", map[string]string{"b/pipe.yaml": pipeV2Only}, nil, "v2"},
		{"rules", nil, map[string]string{"test.example.com/pipe.yaml": otherRules}, "v2,v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			next, problems := loadFiles(mapFS(keepBase.schemas, tt.schemas), mapFS(keepBase.conversions, tt.rules))
			if len(problems) > 0 {
				t.Fatalf("problems:\n%s", problemList(problems))
			}
			prev, _ := base.ResourceByKind("test.example.com", "Pipe")
			r, _ := next.ResourceByKind("test.example.com", "Pipe")
			if got := strings.Join(SchemaChanges(prev, r), ","); got != tt.want {
				t.Errorf("SchemaChanges = %q, want %q", got, tt.want)
			}
		})
	}
}

// A definition kept from before keeps its names against a new file, reload
// after reload, until its own file is fixed.
func TestLoadKeptKeepsItsNames(t *testing.T) {
	t.Parallel()
	_, broken, _ := reload(t, map[string]string{"c/thing.yaml": "kind: [\n"}, nil, LoadOptions{WithoutBuiltins: true})
	edits := map[string]string{"c/thing.yaml": "kind: [\n", "0/other.yaml": thing("kind: Other")}
	snap, problems := LoadWith(mapFS(keepBase.schemas, edits), mapFS(keepBase.conversions, nil), LoadOptions{WithoutBuiltins: true, Previous: broken})
	if got := strings.Join(served(snap), "|"); got != "gadgets a/gadget.yaml|pipes b/pipe.yaml|things c/thing.yaml stale" {
		t.Errorf("served: %s", got)
	}
	if !hasProblem(problems, "0/other.yaml", 0, "already defined in c/thing.yaml") {
		t.Errorf("problems:\n%s", problemList(problems))
	}
}
