package prove

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dynapi/dynapi/engine/registry"
)

func TestShippedConversionsAreProved(t *testing.T) {
	t.Parallel()
	snap := loadShipped(t)
	for _, f := range Snapshot(snap) {
		t.Error(f)
	}
	if r, ok := snap.ResourceByKind("plumbing.example.com", "Pipe"); !ok || r.Conversion == nil {
		t.Fatal("the shipped Pipe has no conversion rules")
	}
}

// pipeWith proves Pipe with its shipped rules edited: old replaced by new.
func pipeWith(t *testing.T, old, new string) []Failure {
	t.Helper()
	rules, err := os.ReadFile("../../conversions/plumbing.example.com/pipe.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rules), old) {
		t.Fatalf("the shipped rules lack %q", old)
	}
	edited := strings.Replace(string(rules), old, new, 1)
	snap, problems := registry.Load(os.DirFS("../../schemas"), fstest.MapFS{"plumbing.example.com/pipe.yaml": {Data: []byte(edited)}})
	if len(problems) > 0 {
		t.Fatalf("the edited rules do not load: %v", problems)
	}
	r, _ := snap.ResourceByKind("plumbing.example.com", "Pipe")
	return Kind(r)
}

func TestProofFindsFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new string
		field          string
		reason         string
		rule           string // one of the rules named, "" for none
	}{
		{"a field that does not reach the hub", "- wrap:      {from: spec.outlet, to: spec.outlets}", "",
			"spec.outlet", "a field of v1 does not reach the hub v2: v2's schema has no such field (no rule converts it)", ""},
		{"a value the hub refuses", "plastic: Plastic}", "plastic: PVC}",
			"spec.material", "v1 → v2: the converted object is invalid", "versions.v1.toHub[2]: mapValues"},
		{"a value a version refuses", "{path: spec.pressure, to: number}", "{path: spec.pressure, to: string}",
			"spec.pressure", "v1 → v2: the converted object is invalid", "versions.v1.toHub[5]: coerce"},
		{"a field lost on the way", "- move:      {from: spec.owner, to: spec.maintainer}", "- delete:    {path: spec.owner}",
			"spec.owner", "the round trip v1 → v2 → v1 → v2 → v1 changes the field", "versions.v1.toHub[0]: delete {path: spec.owner}"},
		{"a lossy rule", "{path: spec.pressure, to: number}", "{path: spec.pressure, to: number, from: string}",
			"spec.pressure", "the round trip v1 → v2 → v2 → v2 → v1 changes the field: was 100, got \"100\"", "versions.v1.fromHub (inverse of toHub[5]): coerce"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			failures := pipeWith(t, tt.old, tt.new)
			if !hasFailure(failures, tt.field, tt.reason, tt.rule) {
				t.Errorf("want a failure at %s: %q (rule %q), got:\n%s", tt.field, tt.reason, tt.rule, list(failures))
			}
			for _, f := range failures {
				if f.File != "plumbing.example.com/pipe.yaml" || !f.Conversion {
					t.Errorf("failure names %s (conversion %v), want the rules file", f.File, f.Conversion)
				}
			}
		})
	}
}

// A kind without rules must have versions of the same shape.
func TestProofWithoutRules(t *testing.T) {
	t.Parallel()
	snap, problems := registry.Load(fstest.MapFS{"thing.yaml": {Data: []byte(`group: test.example.com
kind: Thing
plural: things
scope: Cluster
versions:
- {name: v1, storage: true, schema: {type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}}
- {name: v2, schema: {type: object, properties: {spec: {type: object, properties: {a: {type: string}, b: {type: integer}}}}}}
- {name: v3, served: false}
`)}}, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	r, _ := snap.ResourceByKind("test.example.com", "Thing")
	failures := Kind(r)
	want := "thing.yaml: spec.b: a field of v2 does not reach the hub v1: v1's schema has no such field (the kind has no conversion rules: its versions must have the same fields)"
	if len(failures) == 0 || !strings.HasPrefix(failures[0].String(), want) || failures[0].Conversion {
		t.Errorf("want %q, got:\n%s", want, list(failures))
	}
}

func TestProofOfOneVersion(t *testing.T) {
	t.Parallel()
	snap := loadShipped(t)
	r, _ := snap.ResourceByKind("shop.example.com", "Warehouse")
	if f := Kind(r); f != nil {
		t.Errorf("a kind with one version has failures: %v", f)
	}
}

func TestFailureString(t *testing.T) {
	t.Parallel()
	f := Failure{File: "g/k.yaml", Rules: []string{"versions.v1.toHub[0]: move {from: a, to: b}", "x"}, Field: "spec.a", Reason: "lost"}
	if got, want := f.String(), "g/k.yaml: spec.a: lost (rules: versions.v1.toHub[0]: move {from: a, to: b}; x)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (Failure{File: "f", Reason: "r"}).String(); got != "f: r" {
		t.Errorf("String() = %q", got)
	}
}

func TestParseField(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, keys, get string }{
		{"spec.a", "spec|a", "spec.a"},
		{"spec.items[2].bar", "spec|items|bar", "spec.items.2.bar"},
		{"metadata.labels[app.kubernetes.io/name]", "metadata|labels|app.kubernetes.io/name", `metadata.labels.app\.kubernetes\.io\/name`},
		{"[a.b].c", "a.b|c", `a\.b.c`},
	}
	for _, tt := range tests {
		keys, get := parseField(tt.in)
		if strings.Join(keys, "|") != tt.keys || get != tt.get {
			t.Errorf("parseField(%q) = %q, %q", tt.in, keys, get)
		}
		if back := fieldPath(keys); !strings.Contains(tt.in, "[2]") && back != tt.in {
			t.Errorf("fieldPath(%q) = %q, want %q", keys, back, tt.in)
		}
	}
}

func hasFailure(failures []Failure, field, reason, rule string) bool {
	for _, f := range failures {
		if f.Field != field || !strings.HasPrefix(f.Reason, reason) {
			continue
		}
		if rule == "" && len(f.Rules) == 0 {
			return true
		}
		for _, r := range f.Rules {
			if rule != "" && strings.HasPrefix(r, rule) {
				return true
			}
		}
	}
	return false
}

func list(failures []Failure) string {
	var b strings.Builder
	for _, f := range failures {
		b.WriteString("\t" + f.String() + "\n")
	}
	return b.String()
}

// A chain that moves a field and then coerces it, at the root and inside
// forEach on a moved list, loads without from: (Bind follows the type
// through the move) and is proved lossless.
func TestProofOfMovedThenCoerced(t *testing.T) {
	t.Parallel()
	dir := "testdata/moved-then-coerced/"
	snap, problems := registry.Load(os.DirFS(dir+"schemas"), os.DirFS(dir+"conversions"))
	if len(problems) > 0 {
		t.Fatalf("the rules do not load: %v", problems)
	}
	r, ok := snap.ResourceByKind("test.example.com", "Gauge")
	if !ok || r.Conversion == nil {
		t.Fatal("no Gauge with rules")
	}
	if failures := Kind(r); len(failures) > 0 {
		t.Errorf("failures:\n%s", list(failures))
	}
}
