package schema

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestLacksAgreesWithWalk holds the quick check to the walk that applies
// the defaults: it must say an object lacks a default exactly when the
// walk changes it.
func TestLacksAgreesWithWalk(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, lacksSchema)
	for _, in := range lacksSeeds {
		checkLacks(t, s, in)
	}
}

// checkLacks holds lacksDefaults(in) to the walk: equal, but where the
// object has a key written with an escape, which lacksDefaults leaves to
// the walk (it answers true, and the walk decides).
func checkLacks(t *testing.T, s *Schema, in string) {
	t.Helper()
	got, walk := s.lacksDefaults([]byte(in)), walkChanges(s, in)
	if got != walk && !(got && hasEscapedKey(gjson.Parse(in))) {
		t.Errorf("lacksDefaults(%s) = %v, but the walk changes it: %v", in, got, walk)
	}
}

// hasEscapedKey reports whether v, or a value within it, is an object
// with a key written with an escape.
func hasEscapedKey(v gjson.Result) bool {
	found := false
	v.ForEach(func(k, e gjson.Result) bool {
		found = strings.Contains(k.Raw, `\`) || hasEscapedKey(e)
		return !found
	})
	return found
}

// FuzzLacksAgreesWithWalk is TestLacksAgreesWithWalk for any JSON object.
func FuzzLacksAgreesWithWalk(f *testing.F) {
	for _, in := range lacksSeeds {
		f.Add(in)
	}
	s := mustCompile(f, lacksSchema)
	f.Fuzz(func(t *testing.T, in string) {
		if !gjson.Valid(in) || !gjson.Parse(in).IsObject() || !uniqueKeys(in) {
			return // stored objects come out of jsonb: valid, keys unique
		}
		checkLacks(t, s, in)
	})
}

// uniqueKeys reports whether no object in the JSON text in has a key twice.
func uniqueKeys(in string) bool {
	type frame struct {
		keys    map[string]bool // nil for a list
		wantKey bool
	}
	dec := json.NewDecoder(strings.NewReader(in))
	var stack []*frame
	valueDone := func() { // a value ended: its object expects a key next
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return err == io.EOF
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			if k, ok := tok.(string); ok && top != nil && top.wantKey {
				if top.keys[k] {
					return false
				}
				top.keys[k], top.wantKey = true, false
				continue
			}
			valueDone()
		}
	}
}

func TestUniqueKeys(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		`{"a":"a","b":{"a":1,"b":["a","a"]}}`: true,
		`{"a":1,"a":2}`:                       false,
		`{"l":[{"k":1},{"k":1,"k":2}]}`:       false,
		`{"a":{"x":1},"b":{"x":1}}`:           true,
	} {
		if got := uniqueKeys(in); got != want {
			t.Errorf("uniqueKeys(%s) = %v, want %v", in, got, want)
		}
	}
}

// walkChanges reports whether the defaulting walk changes in.
func walkChanges(s *Schema, in string) bool {
	d := defaulter{keepNulls: true}
	return d.value(gjson.Parse(in), s.root) != nil
}

// lacksSchema has defaults at every depth: properties, list items, map
// values, and a nested object without one of its own.
const lacksSchema = `{"type":"object","properties":{
		"spec":{"type":"object","properties":{
			"a":{"type":"string","default":"x"},
			"n":{"type":"string","nullable":true,"default":"y"},
			"plain":{"type":"string"},
			"l":{"type":"array","items":{"type":"object","properties":{"p":{"type":"string","default":"TCP"}}}},
			"s":{"type":"array","items":{"type":"string","default":"d"}},
			"m":{"type":"object","additionalProperties":{"type":"object","properties":{"w":{"type":"integer","default":1}}}},
			"o":{"type":"object","properties":{"deep":{"type":"object","properties":{"z":{"type":"boolean","default":false}}}}}}},
		"status":{"type":"object","properties":{"phase":{"type":"string"}}}}}`

var lacksSeeds = []string{
	`{}`,
	`{"\b":{}}`, // an escaped key: left to the walk (found by the fuzzer)
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
}
