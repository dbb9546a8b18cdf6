package convert

import (
	"bytes"
	"slices"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestConvertWithoutRules(t *testing.T) {
	t.Parallel()
	withRules := parseRules(t, v1ToHub(`[{move: {from: spec.a, to: spec.b}}]`))
	tests := []struct {
		name     string
		rules    *Rules
		in       []byte
		from, to string
		want     []byte
	}{
		{"nil rules rewrite apiVersion", nil, thing("v1", `"spec":{"a":1}`), "v1", "v2", thing("v2", `"spec":{"a":1}`)},
		{"nil rules keep the core group", nil, []byte(`{"apiVersion":"v1","kind":"Namespace"}`), "v1", "v2", []byte(`{"apiVersion":"v2","kind":"Namespace"}`)},
		{"a version without rules has the hub's shape", withRules, thing("v3", `"spec":{"a":1}`), "v3", "v2", thing("v2", `"spec":{"a":1}`)},
		{"between two versions through the hub", withRules, thing("v3", `"spec":{"b":1}`), "v3", "v1", thing("v1", `"spec":{"a":1}`)},
		{"the group comes from the rules", withRules, []byte(`{"apiVersion":"other/v1","spec":{"a":1}}`), "v1", "v2",
			[]byte(`{"apiVersion":"test.example.com/v2","spec":{"b":1}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := bytes.Clone(tt.in)
			got, err := tt.rules.Convert(in, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			jsoneq.Assert(t, got, tt.want)
			if !bytes.Equal(in, tt.in) {
				t.Errorf("Convert modified its input: %s", in)
			}
		})
	}
}

func TestConvertSameVersionIsNoOp(t *testing.T) {
	t.Parallel()
	in := thing("v1", `"spec":{"a":1}`)
	for _, r := range []*Rules{nil, parseRules(t, v1ToHub(`[{move: {from: spec.a, to: spec.b}}]`))} {
		got, err := r.Convert(in, "v1", "v1")
		if err != nil || &got[0] != &in[0] {
			t.Errorf("Convert(v1, v1) = %s, %v; want the input itself", got, err)
		}
	}
}

func TestConvertRefusesNonObjects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, ` `, `[1]`, `"x"`} {
		_, err := (*Rules)(nil).Convert([]byte(in), "v1", "v2")
		if engine.ErrorCode(err) != engine.CodeBadRequest {
			t.Errorf("Convert(%q) error = %v, want BadRequest", in, err)
		}
	}
}

func TestFromHubWrittenOut(t *testing.T) {
	t.Parallel()
	r := parseRules(t, `  v1:
    toHub: [{move: {from: spec.a, to: spec.b}}]
    fromHub: [{copy: {from: spec.b, to: spec.a}}]
`)
	got, err := r.Convert(thing("v2", `"spec":{"b":1}`), "v2", "v1")
	if err != nil {
		t.Fatal(err)
	}
	jsoneq.Assert(t, got, thing("v1", `"spec":{"a":1,"b":1}`))
}

func TestNilRulesAccessors(t *testing.T) {
	t.Parallel()
	var r *Rules
	if r.Group() != "" || r.Kind() != "" || r.Hub() != "" || r.Versions() != nil || r.RulesAt("v1", []string{"spec"}) != nil {
		t.Error("a nil Rules must answer with zero values")
	}
	r = parseRules(t, v1ToHub(`[]`)+"  v3:\n    toHub: []\n")
	if r.Group() != "test.example.com" || r.Kind() != "Thing" || r.Hub() != "v2" || !slices.Equal(r.Versions(), []string{"v1", "v3"}) {
		t.Errorf("accessors: %q %q %q %q", r.Group(), r.Kind(), r.Hub(), r.Versions())
	}
}

func TestRulesAt(t *testing.T) {
	t.Parallel()
	r := parseRules(t, v1ToHub(`[{move: {from: spec.diameter, to: spec.size.diameter}}, {set: {path: spec.kind, value: x}},
      {forEach: {path: spec.joints, rules: [{move: {from: type, to: kind}}]}}]`))
	tests := []struct {
		keys []string
		want []string
	}{
		{[]string{"spec", "size"}, []string{
			"versions.v1.toHub[0]: move {from: spec.diameter, to: spec.size.diameter}",
			"versions.v1.fromHub (inverse of toHub[0]): move {from: spec.size.diameter, to: spec.diameter}"}},
		{[]string{"spec", "kind"}, []string{
			"versions.v1.toHub[1]: set {path: spec.kind, value: \"x\"}",
			"versions.v1.fromHub (inverse of toHub[1]): delete {path: spec.kind}"}},
		{[]string{"spec", "joints", "type"}, []string{
			"versions.v1.toHub[2].forEach.rules[0]: move {from: type, to: kind}",
			"versions.v1.toHub[2]: forEach {path: spec.joints, rules: [...]}",
			"versions.v1.fromHub (inverse of toHub[2].forEach.rules[0]): move {from: kind, to: type}",
			"versions.v1.fromHub (inverse of toHub[2]): forEach {path: spec.joints, rules: [...]}"}},
		{[]string{"status"}, nil},
	}
	for _, tt := range tests {
		if got := r.RulesAt("v1", tt.keys); !slices.Equal(got, tt.want) {
			t.Errorf("RulesAt(%q):\n got %q\nwant %q", tt.keys, got, tt.want)
		}
	}
}

func TestProject(t *testing.T) {
	t.Parallel()
	r := parseRules(t, v1ToHub(`[{wrap: {from: spec.outlet, to: spec.outlets}}]`))
	// v1 knows only spec.outlet: prune everything else from spec.
	prune := func(b []byte) ([]byte, error) {
		return r.Convert(thing("v1", `"spec":{"outlet":"a"}`), "v1", "v1")
	}
	got, err := r.Project(thing("v2", `"spec":{"outlets":["a","b"],"extra":1}`), "v2", "v1", prune)
	if err != nil {
		t.Fatal(err)
	}
	jsoneq.Assert(t, got, thing("v2", `"spec":{"outlets":["a"]}`))
}

// Convert never panics, whatever its input: the pipeline checks JSON at
// the edge, but a stored object could be anything.
func TestConvertSurvivesBrokenJSON(t *testing.T) {
	t.Parallel()
	r := parseRules(t, v1ToHub(benchRules))
	for i := range benchObject {
		for _, in := range [][]byte{benchObject[:i], append(bytes.Clone(benchObject[:i]), `"}]}`...)} {
			if _, err := r.Convert(in, "v1", "v2"); err != nil && engine.ErrorCode(err) != engine.CodeBadRequest {
				t.Fatalf("Convert(%q): %v", in, err)
			}
			if _, err := r.Convert(in, "v2", "v1"); err != nil && engine.ErrorCode(err) != engine.CodeBadRequest {
				t.Fatalf("Convert(%q): %v", in, err)
			}
		}
	}
}
