package convert

import (
	"errors"
	"strings"
	"testing"
)

func TestParseProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		want string // one of the problems, as Problem.String renders it
	}{
		{"yaml syntax", "group: [x", "invalid YAML: "},
		{"unknown field", thingFile("") + "webhook: x\n", `unknown field "webhook"`},
		{"wrong type", "group: x\nkind: Thing\nhub: v2\nversions: [a]\n", "versions: must be a mapping, not array"},
		{"wrong nested type", thingFile("  v1: {toHub: {move: {}}}\n"), "versions.toHub: must be a list, not object"},
		{"not a mapping", "- a\n", "the file: must be a mapping, not array"},
		{"group missing", "kind: Thing\nhub: v2\n", `group: is required ("" for the core group)`},
		{"kind missing", "group: x\nhub: v2\n", "kind: is required"},
		{"hub missing", "group: x\nkind: Thing\n", "hub: is required"},
		{"rules for the hub", thingFile("  v2:\n    toHub: []\n"), "versions.v2: the hub needs no rules"},
		{"unknown rule", thingFile(v1ToHub(`[{rename: {from: a, to: b}}]`)), `versions.v1.toHub[0]: unknown rule "rename"; the rules are coerce, copy, default, delete, forEach,`},
		{"two names", thingFile(v1ToHub(`[{move: {from: a, to: b}, set: {path: a, value: 1}}]`)), "versions.v1.toHub[0]: a rule is a mapping with one key, the rule's name (coerce, copy, "},
		{"rule not a mapping", thingFile(v1ToHub(`[move]`)), "versions.v1.toHub[0]: a rule is a mapping with one key"},
		{"fields not a mapping", thingFile(v1ToHub(`[{move: [a, b]}]`)), "versions.v1.toHub[0]: move: must be a mapping of the rule's fields (from to)"},
		{"field missing", thingFile(v1ToHub(`[{set: {path: a, value: 1}}, {move: {from: a}}]`)), "versions.v1.toHub[1]: move: to is required"},
		{"field unknown", thingFile(v1ToHub(`[{move: {from: a, to: b, too: c}}]`)), `versions.v1.toHub[0]: move: unknown field "too"; move takes from to`},
		{"field not a string", thingFile(v1ToHub(`[{move: {from: a, to: {b: 1}}}]`)), "versions.v1.toHub[0]: move: to: must be a string"},
		{"empty path key", thingFile(v1ToHub(`[{move: {from: spec..a, to: b}}]`)), `versions.v1.toHub[0]: move: from "spec..a": has an empty key`},
		{"lone backslash", thingFile(v1ToHub(`[{delete: {path: 'spec.a\'}}]`)), `versions.v1.toHub[0]: delete: path "spec.a\\": ends with a lone backslash`},
		{"empty path outside forEach", thingFile(v1ToHub(`[{mapValues: {path: "", values: {a: b}}}]`)), "versions.v1.toHub[0]: mapValues: path: must not be empty"},
		{"move into itself", thingFile(v1ToHub(`[{move: {from: spec.a, to: spec.a.b}}]`)), `versions.v1.toHub[0]: move: from "spec.a" and to "spec.a.b": one is inside the other`},
		{"not a bijection", thingFile(v1ToHub(`[{mapValues: {path: spec.m, values: {b: x, a: x, c: z}}}]`)),
			`versions.v1.toHub[0]: mapValues: values are not a bijection: "a" and "b" both map to "x"`},
		{"values not strings", thingFile(v1ToHub(`[{mapValues: {path: spec.m, values: {a: [1]}}}]`)), "mapValues: values: must be a non-empty mapping of strings to strings"},
		{"values empty", thingFile(v1ToHub(`[{mapValues: {path: spec.m, values: {}}}]`)), "mapValues: values: must be a non-empty mapping"},
		{"coerce type", thingFile(v1ToHub(`[{coerce: {path: spec.p, to: int}}]`)), `versions.v1.toHub[0]: coerce: to "int": must be string, integer, number or boolean`},
		{"coerce from type", thingFile(v1ToHub(`[{coerce: {path: spec.p, to: string, from: float}}]`)), `coerce: from "float": must be`},
		{"separator missing", thingFile(v1ToHub(`[{split: {from: a, to: b}}]`)), "versions.v1.toHub[0]: split: separator is required"},
		{"separator empty", thingFile(v1ToHub(`[{join: {from: a, to: b, separator: ""}}]`)), "versions.v1.toHub[0]: join: separator: must not be empty"},
		{"value missing", thingFile(v1ToHub(`[{default: {path: a}}]`)), "versions.v1.toHub[0]: default: value is required"},
		{"key with spaces", thingFile(v1ToHub(`[{toLabel: {from: a, key: "a b"}}]`)), `versions.v1.toHub[0]: toLabel: key "a b": must not contain spaces`},
		{"forEach rules missing", thingFile(v1ToHub(`[{forEach: {path: spec.l}}]`)), "versions.v1.toHub[0]: forEach: rules: must be a list of rules"},
		{"nested problem", thingFile(v1ToHub(`[{forEach: {path: spec.l, rules: [{move: {from: a, to: b}}, {rename: {}}]}}]`)),
			`versions.v1.toHub[0].forEach.rules[1]: unknown rule "rename"`},
		{"fromHub not a list", thingFile("  v1:\n    toHub: []\n    fromHub: {move: {}}\n"), "versions.v1.fromHub: must be a list of rules"},
		{"fromHub problem", thingFile("  v1:\n    toHub: []\n    fromHub: [{wrap: {from: a}}]\n"), "versions.v1.fromHub[0]: wrap: to is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.file))
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("Parse error = %v; want Problems", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("problems lack %q:\n%v", tt.want, err)
			}
		})
	}
}

// With a broken rule, Parse returns the others, for Bind to check; with
// a broken header, nothing.
func TestParseReturnsWhatItCanRead(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(thingFile(v1ToHub(`[{move: {from: spec.a, to: spec.b}}, {rename: {}}]`))))
	if err == nil || r == nil || len(r.versions["v1"].toHub) != 1 {
		t.Fatalf("Parse = %v, %v; want the move and a problem", r, err)
	}
	if r, err := Parse([]byte("kind: Thing\nhub: v2\n")); err == nil || r != nil {
		t.Fatalf("Parse without a group = %v, %v; want no rules", r, err)
	}
}

// Every problem of a file is reported, not only the first.
func TestParseReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte(thingFile(v1ToHub(`[{move: {from: a}}, {rename: {}}, {mapValues: {path: m, values: {a: x, b: x}}}]`))))
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 3 {
		t.Fatalf("want 3 problems, got %v", err)
	}
	for i, where := range []string{"versions.v1.toHub[0]", "versions.v1.toHub[1]", "versions.v1.toHub[2]"} {
		if ps[i].Where != where {
			t.Errorf("problem %d is at %q, want %q", i, ps[i].Where, where)
		}
	}
}

func TestParsePaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		keys   []string
		quoted string // the last key
	}{
		{"spec.a", []string{"spec", "a"}, `"a"`},
		{`metadata.labels.app\.kubernetes\.io/name`, []string{"metadata", "labels", "app.kubernetes.io/name"}, `"app.kubernetes.io/name"`},
		{"spec.ports.80", []string{"spec", "ports", "80"}, `"80"`},
		{`spec.a\\b`, []string{"spec", `a\b`}, `"a\\b"`},
		{`spec.a"*?`, []string{"spec", `a"*?`}, `"a\"*?"`},
	}
	for _, tt := range tests {
		p, err := parsePath(tt.in)
		if err != nil {
			t.Errorf("parsePath(%q): %v", tt.in, err)
			continue
		}
		if strings.Join(p.keys, "|") != strings.Join(tt.keys, "|") || p.quoted[len(p.quoted)-1] != tt.quoted || p.text != tt.in {
			t.Errorf("parsePath(%q) = %q quoted %q text %q", tt.in, p.keys, p.quoted, p.text)
		}
	}
}
