package schema

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// mustCompile compiles a schema written inline in a test.
func mustCompile(t testing.TB, schema string) *Schema {
	t.Helper()
	s, err := Compile([]byte(schema))
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	return s
}

// spec wraps property schemas of spec in a root schema.
func spec(props string) string {
	return `{"type":"object","properties":{"spec":{"type":"object","properties":{` + props + `}}}}`
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema string
		want   []string // one line per problem
	}{
		{"not JSON", `{`, []string{"openAPIV3Schema: invalid JSON: unexpected EOF"}},
		{"not an object", `[]`, []string{"openAPIV3Schema: must be a schema object"}},
		{"unknown type", spec(`"replicas":{"type":"int"}`),
			[]string{`properties.spec.properties.replicas.type: unknown type "int"`}},
		{"type null", spec(`"a":{"type":"null"}`), []string{`properties.spec.properties.a.type: unknown type "null"`}},
		{"type list", spec(`"a":{"type":["string"]}`), []string{`properties.spec.properties.a.type: must be a string`}},
		{"every problem reported", spec(`"a":{"type":"int"},"b":{"type":"str"}`), []string{
			`properties.spec.properties.a.type: unknown type "int"`,
			`properties.spec.properties.b.type: unknown type "str"`,
		}},
		{"dotted property name", spec(`"a.b":{"type":"x"}`), []string{`properties.spec.properties[a.b].type: unknown type "x"`}},
		{"additionalProperties with properties",
			`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}}`,
			[]string{"additionalProperties: additionalProperties and properties are mutually exclusive"}},
		{"default of the wrong type", spec(`"replicas":{"type":"integer","default":"one"}`), []string{
			`properties.spec.properties.replicas.default: Invalid value: "string": default in body must be of type integer: "string"`,
		}},
		{"default out of range", spec(`"replicas":{"type":"integer","minimum":1,"default":0}`), []string{
			`properties.spec.properties.replicas.default: Invalid value: 0: default in body should be greater than or equal to 1`,
		}},
		{"default missing a required field", spec(`"tpl":{"type":"object","required":["image"],"default":{},"properties":{"image":{"type":"string"}}}`),
			[]string{"properties.spec.properties.tpl.default: default.image: Required value"}},
		{"default valid only once defaulted deeper", spec(`"tpl":{"type":"object","required":["image"],"default":{},"properties":{"image":{"type":"string","default":"nginx"}}}`),
			nil},
		{"default with unknown fields", spec(`"tpl":{"type":"object","default":{"x":1,"y":{}},"properties":{"image":{"type":"string"}}}`),
			[]string{"properties.spec.properties.tpl.default: unknown fields: x, y"}},
		{"default in array items", spec(`"l":{"type":"array","items":{"type":"string","default":1}}`), []string{
			`properties.spec.properties.l.items.default: Invalid value: "integer": default in body must be of type string: "integer"`,
		}},
		{"invalid pattern", spec(`"a":{"type":"string","pattern":"(["}`),
			[]string{"properties.spec.properties.a.pattern: must be a valid regular expression: error parsing regexp: missing closing ]: `[`"}},
		{"pattern not a string", spec(`"a":{"type":"string","pattern":5}`),
			[]string{"properties.spec.properties.a.pattern: must be a string"}},
		{"items as a list", spec(`"a":{"type":"array","items":[{"type":"string"}]}`),
			[]string{"properties.spec.properties.a.items: must be a schema object, not an array"}},
		{"properties not an object", spec(`"a":{"type":"object","properties":[]}`),
			[]string{"properties.spec.properties.a.properties: must be an object"}},
		{"schema not an object", spec(`"a":true`), []string{"properties.spec.properties.a: must be a schema object"}},
		{"allOf not a list", spec(`"a":{"allOf":{}}`), []string{"properties.spec.properties.a.allOf: must be a list of schemas"}},
		{"problem inside allOf", spec(`"a":{"allOf":[{"type":"int"}]}`), []string{`properties.spec.properties.a.allOf[0].type: unknown type "int"`}},
		{"keyword of the wrong type", spec(`"a":{"type":"integer","minimum":"x"}`),
			[]string{"properties.spec.properties.a.minimum: expected number, but got string"}},
		{"keyword of the wrong type inside allOf", spec(`"a":{"allOf":[{"minimum":"x"}]}`),
			[]string{"properties.spec.properties.a.allOf[0].minimum: expected number, but got string"}},
		{"negative length", spec(`"a":{"type":"string","maxLength":-1}`),
			[]string{"properties.spec.properties.a.maxLength: must be >= 0 but found -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compile([]byte(tt.schema))
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestCompileAccepts compiles what CustomResourceDefinitions commonly
// write and the validator must ignore or understand.
func TestCompileAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, schema string }{
		{"empty", `{}`},
		{"annotations", spec(`"a":{"type":"string","description":"d","title":"t","example":"e","externalDocs":{"url":"u"}}`)},
		{"list and map types", spec(`"a":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","x-kubernetes-map-type":"atomic","properties":{"name":{"type":"string"}}}}`)},
		{"validations", spec(`"a":{"type":"integer","x-kubernetes-validations":[{"rule":"self > 0"}]}`)},
		{"unknown and numeric formats", spec(`"a":{"type":"integer","format":"int64"},"b":{"type":"string","format":"k8s-unknown"},"c":{"type":"number","format":"double"}`)},
		{"nullable without type", spec(`"a":{"nullable":true,"x-kubernetes-preserve-unknown-fields":true}`)},
		{"int-or-string with allOf", spec(`"a":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]}]}`)},
		{"additionalProperties false", spec(`"a":{"type":"object","additionalProperties":false}`)},
		{"additionalProperties true beside properties", spec(`"a":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":true}`)},
		{"exclusive bounds without a bound", spec(`"a":{"type":"number","exclusiveMinimum":true,"exclusiveMaximum":false}`)},
		{"property names needing escapes", spec(`"a/b~c d%":{"type":"string","default":"x"}`)},
		{"metadata and type meta constraints", `{"type":"object","required":["kind"],"properties":{"kind":{"type":"string"},"metadata":{"type":"object","properties":{"name":{"type":"string","pattern":"^a","default":"a"}}}}}`},
		{"root default ignored", `{"type":"object","default":{"x":1}}`},
		{"null default is no default", spec(`"a":{"type":"string","default":null}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mustCompile(t, tt.schema)
		})
	}
}

func TestRaw(t *testing.T) {
	t.Parallel()
	in := []byte(spec(`"a":{"type":"string","x-kubernetes-validations":[{"rule":"self != ''"}]}`))
	s, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	in[0] = ' '
	raw := s.Raw()
	if !bytes.Equal(raw, []byte(spec(`"a":{"type":"string","x-kubernetes-validations":[{"rule":"self != ''"}]}`))) {
		t.Fatalf("Raw() = %s, want the schema as compiled", raw)
	}
	raw[0] = ' '
	if s.Raw()[0] != '{' {
		t.Error("Raw() shares its bytes with the caller")
	}
}

func TestValidationRules(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","x-kubernetes-validations":[{"rule":"has(self.spec)"}],"properties":{
		"spec":{"type":"object","properties":{
			"a.b":{"type":"integer","x-kubernetes-validations":[{"rule":"self > 0","message":"positive"}]},
			"l":{"type":"array","items":{"type":"string","x-kubernetes-validations":[{"rule":"self != ''"}]}}}}}}`)
	got := s.ValidationRules()
	want := []RuleSet{
		{SchemaPath: "", Rules: []byte(`[{"rule":"has(self.spec)"}]`)},
		{SchemaPath: "properties.spec.properties[a.b]", Rules: []byte(`[{"message":"positive","rule":"self > 0"}]`)},
		{SchemaPath: "properties.spec.properties.l.items", Rules: []byte(`[{"rule":"self != ''"}]`)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rule sets, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].SchemaPath != want[i].SchemaPath || !jsoneq.Equal(got[i].Rules, want[i].Rules) {
			t.Errorf("rule set %d = %s %s, want %s %s", i, got[i].SchemaPath, got[i].Rules, want[i].SchemaPath, want[i].Rules)
		}
	}
}
