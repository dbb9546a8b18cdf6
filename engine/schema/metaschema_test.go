package schema

import (
	"slices"
	"strings"
	"testing"
)

// keywordCases are property schemas holding every keyword the translator
// hands the validator, with values the metaschema refuses and values it
// accepts.
var keywordCases = []struct {
	name, props string
	bad         bool
}{
	{"minimum a string", `"a":{"type":"integer","minimum":"x"}`, true},
	{"maximum a boolean", `"a":{"type":"integer","maximum":true}`, true},
	{"bounds fractional", `"a":{"type":"number","minimum":0.5,"maximum":1e3}`, false},
	{"exclusive flag on a bad bound", `"a":{"type":"number","minimum":"x","exclusiveMinimum":true}`, true},
	{"exclusive maximum flag on a bad bound", `"a":{"type":"number","maximum":[],"exclusiveMaximum":true}`, true},
	{"exclusive bound as a number", `"a":{"type":"number","exclusiveMinimum":1,"exclusiveMaximum":2.5}`, false},
	{"exclusive flag of another type", `"a":{"type":"number","exclusiveMinimum":"x"}`, false},
	{"multipleOf zero", `"a":{"type":"number","multipleOf":0}`, true},
	{"multipleOf negative", `"a":{"type":"number","multipleOf":-2}`, true},
	{"multipleOf a string", `"a":{"type":"number","multipleOf":"2"}`, true},
	{"multipleOf fractional", `"a":{"type":"number","multipleOf":0.01}`, false},
	{"maxLength negative", `"a":{"type":"string","maxLength":-1}`, true},
	{"maxLength fractional", `"a":{"type":"string","maxLength":1.5}`, true},
	{"maxLength a string", `"a":{"type":"string","maxLength":"3"}`, true},
	{"lengths written as decimals", `"a":{"type":"string","minLength":1.0,"maxLength":1e2}`, false},
	{"minus zero", `"a":{"type":"string","minLength":-0}`, false},
	{"huge length", `"a":{"type":"string","maxLength":1e400}`, false},
	{"minLength negative", `"a":{"type":"string","minLength":-3}`, true},
	{"item counts wrong", `"a":{"type":"array","minItems":"1","maxItems":-1,"items":{"type":"string"}}`, true},
	{"property counts wrong", `"a":{"type":"object","minProperties":null,"maxProperties":2.5}`, true},
	{"uniqueItems a string", `"a":{"type":"array","uniqueItems":"yes"}`, true},
	{"uniqueItems a number", `"a":{"type":"array","uniqueItems":1}`, true},
	{"required not a list", `"a":{"type":"object","required":"b"}`, true},
	{"required of numbers", `"a":{"type":"object","required":[1,"b",{}]}`, true},
	{"required twice", `"a":{"type":"object","required":["b","c","b"]}`, true},
	{"required twice and a number", `"a":{"type":"object","required":[1,"b",1.0,"b"]}`, true},
	{"required empty", `"a":{"type":"object","required":[]}`, false},
	{"enum not a list", `"a":{"type":"string","enum":3}`, true},
	{"enum an object", `"a":{"type":"string","enum":{"x":1}}`, true},
	{"enum empty or repeated", `"a":{"type":"string","enum":[]},"b":{"enum":["x","x",1,null]}`, false},
	{"allOf empty", `"a":{"allOf":[]}`, true},
	{"anyOf and oneOf empty", `"a":{"anyOf":[],"oneOf":[]}`, true},
	{"junctions", `"a":{"allOf":[{"minimum":1}],"anyOf":[{"type":"string"}],"oneOf":[{"type":"string"}],"not":{}}`, false},
	{"inside junctions", `"a":{"allOf":[{"minimum":"x"}],"anyOf":[{"maxLength":-1}],"oneOf":[{"enum":1}],"not":{"required":[2]}}`, true},
	{"inside items and maps", `"a":{"type":"array","items":{"type":"object","additionalProperties":{"type":"string","minLength":"x"}}}`, true},
	{"nullable", `"a":{"type":"integer","nullable":true,"minimum":"x","allOf":[{"maximum":"y"}]}`, true},
	{"everything at once", `"a":{"type":"string","maxLength":-1,"minLength":"x","enum":1},"b":{"type":"integer","minimum":"x","multipleOf":0}`, true},
}

// TestKeywordChecksAgreeWithMetaschema: what the translator refuses in the
// values it hands the validator is what the jsonschema compiler's
// metaschema check refuses in the translated document, with the same
// problems; so Compile, which leaves the compiler for first use, refuses
// every schema it refused when it compiled at load.
func TestKeywordChecksAgreeWithMetaschema(t *testing.T) {
	t.Parallel()
	for _, tt := range keywordCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			decoded, err := decodeJSON([]byte(spec(tt.props)))
			if err != nil {
				t.Fatal(err)
			}
			tr := newTranslator()
			out, _ := tr.root(decoded.(map[string]any))
			var compiler []string
			if _, _, err := compileDoc(marshal(out), tr.formats); err != nil {
				compiler = compileProblems(err)
			}
			for i, p := range compiler {
				// The translator names the junctions of a nullable schema
				// where they are written, not in the "else" it wraps them in.
				compiler[i] = strings.ReplaceAll(p, ".else.", ".")
			}
			got := slices.Sorted(slices.Values(tr.problems))
			slices.Sort(compiler)
			if strings.Join(got, "\n") != strings.Join(compiler, "\n") {
				t.Errorf("translator:\n\t%s\ncompiler:\n\t%s", strings.Join(got, "\n\t"), strings.Join(compiler, "\n\t"))
			}
			if bad := len(compiler) > 0; bad != tt.bad {
				t.Errorf("the compiler refuses it: %v, want %v (%q)", bad, tt.bad, compiler)
			}
		})
	}
}

// TestNumbersOutOfRange: a keyword whose number has no exact value (an
// exponent past what math/big takes) is refused by the translator; the
// jsonschema compiler would panic on it, so it must never get there.
func TestNumbersOutOfRange(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, props, want string }{
		{"length", `"a":{"type":"string","maxLength":1e1000000000}`,
			"properties.a.maxLength: number out of range: 1e1000000000"},
		{"bound", `"a":{"type":"number","minimum":-1e1000000000}`,
			"properties.a.minimum: number out of range: -1e1000000000"},
		{"multipleOf", `"a":{"type":"number","multipleOf":1e-1000000000}`,
			"properties.a.multipleOf: number out of range: 1e-1000000000"},
		{"required", `"a":{"type":"object","required":[1e1000000000,1e1000000000]}`,
			"properties.a.required: items at index 0 and 1 are equal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compile([]byte(spec(tt.props)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile: %v, want %q", err, tt.want)
			}
		})
	}
}

// FuzzCompiledMeansCompilable: a schema Compile accepts is one the
// jsonschema compiler compiles, when first used.
func FuzzCompiledMeansCompilable(f *testing.F) {
	for _, tt := range keywordCases {
		f.Add(spec(tt.props))
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Compile([]byte(text))
		if err != nil {
			return
		}
		if err := s.CheckValidator(); err != nil {
			t.Errorf("Compile accepted %s, the compiler refuses it:\n%v", text, err)
		}
	})
}
