package convert

import (
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// testShape is a Shape over a small openAPIV3Schema, as the registry's.
type testShape struct{ s gjson.Result }

func shapeOf(schema string) Shape { return testShape{gjson.Parse(schema)} }

func (t testShape) Field(name string) (Shape, bool) {
	if p := t.s.Get("properties." + gjson.Escape(name)); p.Exists() {
		return testShape{p}, true
	}
	if ap := t.s.Get("additionalProperties"); ap.IsObject() {
		return testShape{ap}, true
	}
	if t.s.Get("x-kubernetes-preserve-unknown-fields").Bool() {
		return anyShape{}, true
	}
	return nil, false
}

func (t testShape) Items() (Shape, bool) {
	i := t.s.Get("items")
	return testShape{i}, i.Exists()
}

func (t testShape) Type() string { return t.s.Get("type").Str }

// spec builds the schema of an object whose spec has the given properties.
func spec(properties string) Shape {
	return shapeOf(`{"type":"object","properties":{"metadata":{"type":"object"},"spec":{"type":"object","properties":{` + properties + `}}}}`)
}

var testShapes = map[string]Shape{
	"v1": spec(`"a":{"type":"integer"},"p":{"type":"number"},"n":{"type":"integer"},"cfg":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
		"joints":{"type":"array","items":{"type":"object","properties":{"type":{"type":"string"}}}}`),
	"v2": spec(`"b":{"type":"integer"},"q":{"type":"integer"},"joints":{"type":"array","items":{"type":"object","properties":{"kind":{"type":"string"}}}}`),
	"v3": nil,
}

func TestBindProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		versions string
		hub      string
		want     string
	}{
		{"hub not a version", v1ToHub("[]"), "v9", `hub: "v9" is not a version of Thing (versions: v1, v2, v3)`},
		{"no such version", "  v7:\n    toHub: []\n", "v2", "versions.v7: no such version of Thing (versions: v1, v2, v3)"},
		{"read path the version lacks", v1ToHub(`[{move: {from: spec.nope, to: spec.b}}]`), "v2", `versions.v1.toHub[0]: move: from "spec.nope": v1 has no such field`},
		{"write path the hub lacks", v1ToHub(`[{move: {from: spec.a, to: spec.size.b}}]`), "v2", `versions.v1.toHub[0]: move: to "spec.size.b": v2 (the hub) has no such field`},
		{"apiVersion", v1ToHub(`[{set: {path: apiVersion, value: x}}]`), "v2", `versions.v1.toHub[0]: set: path "apiVersion": apiVersion and kind are set by the conversion itself`},
		{"metadata.name", v1ToHub(`[{move: {from: metadata.name, to: spec.b}}]`), "v2", `from "metadata.name": only metadata.labels and metadata.annotations`},
		{"nested path the items lack", v1ToHub(`[{forEach: {path: spec.joints, rules: [{move: {from: type, to: knd}}]}}]`), "v2",
			`versions.v1.toHub[0].forEach.rules[0]: move: to "knd": v2 (the hub) has no such field in the items of spec.joints`},
		{"coerce of an unknown type", v1ToHub(`[{coerce: {path: spec.cfg.x, to: string}}, {move: {from: spec.cfg.x, to: spec.b}}]`), "v2",
			"versions.v1.toHub[0]: coerce: cannot tell the type of spec.cfg.x in v1: write from: string, integer, number or boolean"},
		// What the rules before cannot tell is still refused, the rule named.
		{"coerce of a field moved from preserved fields", v1ToHub(`[{move: {from: spec.cfg.x, to: spec.b}}, {coerce: {path: spec.b, to: integer}}]`), "v2",
			"versions.v1.toHub[1]: coerce: cannot tell the type of spec.b in v1: write from: string, integer, number or boolean"},
		{"coerce in the items of a list moved from preserved fields", v1ToHub(`[{move: {from: spec.cfg.l, to: spec.joints}}, {forEach: {path: spec.joints, rules: [{coerce: {path: kind, to: string}}]}}]`), "v2",
			"versions.v1.toHub[1].forEach.rules[0]: coerce: cannot tell the type of kind in v1: write from: string, integer, number or boolean"},
		{"coerce of an object moved", v1ToHub(`[{move: {from: spec.cfg, to: spec.b}}, {coerce: {path: spec.b, to: integer}}]`), "v2",
			"versions.v1.toHub[1]: coerce: spec.b is of type object in v1: only strings"},
		{"coerce of an object", v1ToHub(`[{coerce: {path: spec.cfg, to: string}}, {move: {from: spec.cfg, to: spec.b}}]`), "v2", "coerce: spec.cfg is of type object in v1: only strings"},
		{"fromHub written out reads the hub", "  v1:\n    toHub: []\n    fromHub: [{move: {from: spec.a, to: spec.n}}]\n", "v2",
			`versions.v1.fromHub[0]: move: from "spec.a": v2 (the hub) has no such field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := Parse([]byte(strings.Replace(thingFile(tt.versions), "hub: v2", "hub: "+tt.hub, 1)))
			if err != nil {
				t.Fatal(err)
			}
			bound, err := r.Bind(testShapes)
			var ps Problems
			if !errors.As(err, &ps) || bound != nil {
				t.Fatalf("Bind = %v, %v; want Problems", bound, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("problems lack %q:\n%v", tt.want, err)
			}
		})
	}
}

func TestBindAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, toHub string }{
		{"paths of both versions", `[{move: {from: spec.a, to: spec.b}}]`},
		{"a path moved later", `[{coerce: {path: spec.p, to: integer}}, {move: {from: spec.p, to: spec.q}}]`},
		{"a path written earlier", `[{move: {from: spec.n, to: spec.q}}, {coerce: {path: spec.q, to: number, from: integer}}]`},
		{"anything under preserved fields", `[{move: {from: spec.cfg.deep.x, to: spec.b}}]`},
		{"labels and annotations", `[{toLabel: {from: spec.a, key: a.b/c}}, {move: {from: metadata.annotations.x, to: spec.b}}]`},
		{"forEach items", `[{forEach: {path: spec.joints, rules: [{move: {from: type, to: kind}}]}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := parseRules(t, v1ToHub(tt.toHub)).Bind(testShapes); err != nil {
				t.Errorf("Bind:\n%v", err)
			}
		})
	}
	// A version without a schema has every field.
	if _, err := parseRules(t, "  v3:\n    toHub: [{move: {from: spec.any, to: spec.b}}]\n").Bind(testShapes); err != nil {
		t.Errorf("Bind of a version without a schema:\n%v", err)
	}
}

// Bind tells coerce and toAnnotation the source type, so the way back
// restores it.
func TestBindTypesTheWayBack(t *testing.T) {
	t.Parallel()
	r, err := parseRules(t, v1ToHub(`[{coerce: {path: spec.p, to: integer}}, {move: {from: spec.p, to: spec.q}},
      {toAnnotation: {from: spec.n, key: example.com/n}}, {move: {from: spec.a, to: spec.b}}]`)).Bind(testShapes)
	if err != nil {
		t.Fatal(err)
	}
	hub, err := r.Convert(thing("v1", `"metadata":{"name":"x"},"spec":{"p":2.5,"n":7,"a":1}`), "v1", "v2")
	if err != nil {
		t.Fatal(err)
	}
	jsoneq.Assert(t, hub, thing("v2", `"metadata":{"name":"x","annotations":{"example.com/n":"7"}},"spec":{"q":3,"b":1}`))
	back, err := r.Convert(hub, "v2", "v1")
	if err != nil {
		t.Fatal(err)
	}
	// 3, not "3": the way back knows spec.p is a number and spec.n an integer.
	jsoneq.Assert(t, back, thing("v1", `"metadata":{"name":"x"},"spec":{"p":3,"n":7,"a":1}`))
}
