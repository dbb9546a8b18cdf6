package schema

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestLacksAgreesWithWalk holds the quick check to the walk that applies
// the defaults: it must say an object lacks a default exactly when the
// walk changes it.
func TestLacksAgreesWithWalk(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{
		"spec":{"type":"object","properties":{
			"a":{"type":"string","default":"x"},
			"n":{"type":"string","nullable":true,"default":"y"},
			"plain":{"type":"string"},
			"l":{"type":"array","items":{"type":"object","properties":{"p":{"type":"string","default":"TCP"}}}},
			"s":{"type":"array","items":{"type":"string","default":"d"}},
			"m":{"type":"object","additionalProperties":{"type":"object","properties":{"w":{"type":"integer","default":1}}}},
			"o":{"type":"object","properties":{"deep":{"type":"object","properties":{"z":{"type":"boolean","default":false}}}}}}},
		"status":{"type":"object","properties":{"phase":{"type":"string"}}}}}`
	s := mustCompile(t, schema)
	for _, in := range []string{
		`{}`,
		`{"spec":{}}`,
		`{"spec":{"a":"set"}}`,
		`{"spec":{"a":null}}`,
		`{"spec":{"a":"set","n":null,"plain":null}}`,
		`{"spec":{"plain":"a \"quoted\" \\ value","a":"x"}}`,
		`{"spec":{"a":"x","l":[{"p":"UDP"},{}]}}`,
		`{"spec":{"a":"x","l":[{"p":"UDP"},{"p":"TCP","q":[1,{"r":"}"}]}]}}`,
		`{"spec":{"a":"x","s":["a",null]}}`,
		`{"spec":{"a":"x","s":["a","b"],"m":{"k":{"w":2},"k.2":{}}}}`,
		`{"spec":{"a":"x","m":{"k":{"w":2}}},"status":{"phase":"}"}}`,
		`{"spec":{"a":"x","o":{"deep":{}}}}`,
		`{"spec":{"a":"x","o":{"deep":{"z":true}}}}`,
		`{"spec":{"a":"x","o":{"deep":null}}}`,
		`{"spec":{"a\u0062":"x"}}`,
		`{"metadata": {"name": "w"}, "spec": {"a": "x", "l": [{"p": "UDP"}, {}]}}`,
		`{"metadata": {"name": "w"}, "spec": {"l": [{"p": "UDP"}], "a": "x"}, "status": {"phase": "Ready"}}`,
		`{"spec":"not an object"}`,
		`{"spec":{"a":"x","l":"not a list","o":[1,2]}}`,
	} {
		d := defaulter{keepNulls: true}
		walk := d.value(gjson.Parse(in), s.root) != nil
		if got := s.lacksDefaults([]byte(in)); got != walk {
			t.Errorf("lacksDefaults(%s) = %v, but the walk changes it: %v", in, got, walk)
		}
	}
}
