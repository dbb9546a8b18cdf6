package schema

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestThinnedAnswersAsWhole: the validator given the thinned value (valid
// items left out of lists and objects) finds the problems it finds in the
// whole object, at the same paths.
func TestThinnedAnswersAsWhole(t *testing.T) {
	t.Parallel()
	valid := func(n int, item string) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	tests := []struct {
		name, props, spec string
		want              []string // paths of the causes
	}{
		{"a wrong item among valid ones", `"tags":{"type":"array","items":{"type":"string"}}`,
			`{"tags":[` + valid(50, `"a"`) + `,1,` + valid(50, `"a"`) + `,2]}`, []string{"spec.tags[101]", "spec.tags[50]"}},
		{"nested lists", `"rows":{"type":"array","items":{"type":"array","items":{"type":"integer"}}}`,
			`{"rows":[[1,2],[3,"x",4],[5],[6,7,"y"]]}`, []string{"spec.rows[1][1]", "spec.rows[3][2]"}},
		{"objects in a list", `"ports":{"type":"array","items":{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}}`,
			`{"ports":[{"n":1},{"n":"x"},{"n":2},{},{"n":3}]}`, []string{"spec.ports[1].n", "spec.ports[3].n"}},
		{"minItems kept", `"tags":{"type":"array","minItems":3,"items":{"type":"string"}}`,
			`{"tags":["a","b",1]}`, []string{"spec.tags[2]"}},
		{"maxItems over", `"tags":{"type":"array","maxItems":2,"items":{"type":"string"}}`,
			`{"tags":["a","b","c",1]}`, []string{"spec.tags", "spec.tags[3]"}},
		{"required members kept", `"env":{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"string"}}}`,
			`{"env":{"a":"x","b":"y","c":"z"}}`, []string{"spec.env.b"}},
		{"a map of valid values and a wrong one", `"env":{"type":"object","additionalProperties":{"type":"string"}}`,
			`{"env":{"a/b":"x","c~d":2,"e":"y"}}`, []string{"spec.env.c~d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, spec(tt.props))
			v := s.compiledValidator()
			c := causes{doc: v.doc, obj: gjson.Parse(`{"spec":` + tt.spec + `}`)}
			whole := validate(v.schema, c, goValue(c.obj), nil)
			thinned := s.validateBounded(c)
			if !reflect.DeepEqual(thinned, whole) {
				t.Fatalf("thinned %v\nwhole   %v", thinned, whole)
			}
			var paths []string
			for _, e := range thinned {
				paths = append(paths, e.Path)
			}
			if !reflect.DeepEqual(paths, tt.want) {
				t.Errorf("paths %v, want %v", paths, tt.want)
			}
		})
	}
}
