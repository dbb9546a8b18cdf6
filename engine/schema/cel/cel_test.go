package cel

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine"
)

// widgetSchema exercises every feature of a Validator.
const widgetSchema = `
type: object
x-kubernetes-validations:
- rule: "self.metadata.name.startsWith('w-')"
  message: "name must start with w-"
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "!has(self.min) || !has(self.max) || self.min <= self.max"
      messageExpression: "self.min > self.max + 10 ? 'min is far more than max' : 'min is more than max'"
      fieldPath: ".min"
      reason: FieldValueForbidden
    properties:
      min: {type: integer}
      max: {type: integer}
      legacy:
        type: string
        x-kubernetes-validations:
        - rule: "self != 'bad'"
          message: "legacy must not be bad"
      class:
        type: string
        x-kubernetes-validations:
        - rule: "self == oldSelf"
          message: "Value is immutable"
      size:
        type: integer
        x-kubernetes-validations:
        - rule: "!oldSelf.hasValue() || self >= oldSelf.value()"
          optionalOldSelf: true
          message: "size may only grow"
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            port: {type: integer}
      tags:
        type: array
        x-kubernetes-list-type: set
        items: {type: string}
      template:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
`

func compile(t *testing.T, schemaYAML string) (*Validator, error) {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(schemaYAML))
	if err != nil {
		t.Fatal(err)
	}
	return Compile(js)
}

func mustCompile(t *testing.T, schemaYAML string) *Validator {
	t.Helper()
	v, err := compile(t, schemaYAML)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return v
}

func obj(spec string) []byte {
	return []byte(`{"apiVersion":"x.example.com/v1","kind":"Widget","metadata":{"name":"w-1"},"spec":` + spec + `}`)
}

func render(causes []engine.FieldError) string {
	var out []string
	for _, c := range causes {
		out = append(out, c.Type+" "+c.Path+": "+c.Message)
	}
	return strings.Join(out, "\n")
}

func TestValidate(t *testing.T) {
	t.Parallel()
	v := mustCompile(t, widgetSchema)
	tests := []struct {
		name     string
		obj, old []byte
		want     string
	}{
		{"valid create", obj(`{"min":1,"max":2,"class":"a","size":3}`), nil, ""},
		{"root rule", []byte(`{"apiVersion":"x.example.com/v1","kind":"Widget","metadata":{"name":"x"},"spec":{}}`), nil,
			`FieldValueInvalid <nil>: Invalid value: name must start with w-`},
		{"messageExpression, fieldPath and reason", obj(`{"min":3,"max":2}`), nil,
			`FieldValueForbidden spec.min: Forbidden: min is more than max`},
		{"message", obj(`{"legacy":"bad"}`), nil, `FieldValueInvalid spec.legacy: Invalid value: "bad": legacy must not be bad`},
		{"transition rule skipped on create", obj(`{"class":"a"}`), nil, ""},
		{"transition rule on update", obj(`{"class":"b"}`), obj(`{"class":"a"}`),
			`FieldValueInvalid spec.class: Invalid value: "b": Value is immutable`},
		{"transition rule, field added", obj(`{"class":"b"}`), obj(`{}`), ""},
		{"optionalOldSelf on create", obj(`{"size":1}`), nil, ""},
		{"optionalOldSelf, field added", obj(`{"size":1}`), obj(`{}`), ""},
		{"optionalOldSelf on update", obj(`{"size":1}`), obj(`{"size":2}`),
			`FieldValueInvalid spec.size: Invalid value: 1: size may only grow`},
		{"ratcheting: unchanged failing field", obj(`{"legacy":"bad","min":1}`), obj(`{"legacy":"bad"}`), ""},
		{"ratcheting: changed failing field", obj(`{"legacy":"bad"}`), obj(`{"legacy":"good"}`),
			`FieldValueInvalid spec.legacy: Invalid value: "bad": legacy must not be bad`},
		{"list map duplicate", obj(`{"ports":[{"name":"a","port":1},{"name":"a","port":2}]}`), nil,
			`FieldValueDuplicate spec.ports[1]: Duplicate value: {"name":"a"}`},
		{"list set duplicate", obj(`{"tags":["x","y","x"]}`), nil, `FieldValueDuplicate spec.tags[2]: Duplicate value: "x"`},
		{"list duplicate already stored", obj(`{"tags":["x","x"],"min":1}`), obj(`{"tags":["x","x"]}`), ""},
		{"embedded resource", obj(`{"template":{"metadata":{"name":"a"}}}`), nil,
			"FieldValueRequired spec.template.apiVersion: Required value\nFieldValueRequired spec.template.kind: Required value\n" +
				"FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			causes, err := v.Validate(context.Background(), tt.obj, tt.old)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(causes); got != tt.want {
				t.Errorf("Validate =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestCompileNothingToDo(t *testing.T) {
	t.Parallel()
	v := mustCompile(t, `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}`)
	if v != nil {
		t.Errorf("Compile = %v; want nil for a schema without rules", v)
	}
	causes, err := v.Validate(context.Background(), []byte(`not even JSON`), nil)
	if causes != nil || err != nil {
		t.Errorf("nil Validator: %v, %v", causes, err)
	}
}

func TestCompileRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, schema, want string }{
		{"syntax", `{type: object, properties: {spec: {type: object, x-kubernetes-validations: [{rule: "self.a =="}]}}}`,
			`properties.spec.x-kubernetes-validations[0].rule: "self.a ==": compilation failed: ERROR: <input>:1:10: Syntax error`},
		{"unknown field", `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}, x-kubernetes-validations: [{rule: "self.b == 1"}]}}}`,
			`properties.spec.x-kubernetes-validations[0].rule: "self.b == 1": compilation failed: ERROR: <input>:1:5: undefined field 'b'`},
		{"not a boolean", `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}, x-kubernetes-validations: [{rule: "self.a"}]}}}`,
			`properties.spec.x-kubernetes-validations[0].rule: "self.a": cel expression must evaluate to a bool`},
		{"messageExpression", `{type: object, properties: {spec: {type: object, x-kubernetes-validations: [{rule: "true", messageExpression: "1"}]}}}`,
			`properties.spec.x-kubernetes-validations[0].messageExpression: "1": messageExpression must evaluate to a string`},
		{"cost", `{type: object, properties: {spec: {type: object, properties: {l: {type: array, items: {type: string}}}, x-kubernetes-validations: [{rule: "self.l.all(x, self.l.all(y, x == y))"}]}}}`,
			`properties.spec.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x`},
		{"oldSelf in an atomic list", `{type: object, properties: {l: {type: array, items: {type: string, x-kubernetes-validations: [{rule: "self == oldSelf"}]}}}}`,
			`properties.l.items.x-kubernetes-validations[0].rule: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within properties.l`},
		{"optionalOldSelf without oldSelf", `{type: object, properties: {a: {type: string, x-kubernetes-validations: [{rule: "self != ''", optionalOldSelf: true}]}}}`,
			`properties.a.x-kubernetes-validations[0].optionalOldSelf: may not be set if oldSelf is not used in rule`},
		{"fieldPath", `{type: object, properties: {spec: {type: object, x-kubernetes-validations: [{rule: "true", fieldPath: ".nope"}]}}}`,
			`properties.spec.x-kubernetes-validations[0].fieldPath: ".nope": must be a valid path`},
		{"reason", `{type: object, properties: {spec: {type: object, x-kubernetes-validations: [{rule: "true", reason: Nope}]}}}`,
			`properties.spec.x-kubernetes-validations[0].reason: Unsupported value: "Nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := compile(t, tt.schema)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile error = %v; want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestRuntimeCostBudget: a rule whose estimate passes but whose evaluation
// costs more than Kubernetes' per-call limit is stopped, and the object
// refused.
func TestRuntimeCostBudget(t *testing.T) {
	t.Parallel()
	v := mustCompile(t, `{type: object, properties: {spec: {type: object, properties: {l: {type: array, maxItems: 1400, items: {type: integer}}}, x-kubernetes-validations: [{rule: "self.l.all(x, self.l.all(y, x >= 0))"}]}}}`)
	var b strings.Builder
	for i := range 1400 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("1")
	}
	causes, err := v.Validate(context.Background(), obj(`{"l":[`+b.String()+`]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := render(causes); !strings.Contains(got, "call cost exceeds limit") {
		t.Errorf("Validate = %s; want the per-call cost limit", got)
	}
}

func TestCompileRefusesListAndMapTypes(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, schema, want string }{
		{"unknown list type", `{type: object, properties: {l: {type: array, x-kubernetes-list-type: bag, items: {type: string}}}}`,
			`properties.l.x-kubernetes-list-type: Unsupported value: "bag"`},
		{"map without keys", `{type: object, properties: {l: {type: array, x-kubernetes-list-type: map, items: {type: object, properties: {a: {type: string}}}}}}`,
			`properties.l.x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`},
		{"key not a property", `{type: object, properties: {l: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [b], items: {type: object, required: [a], properties: {a: {type: string}}}}}}`,
			`properties.l.x-kubernetes-list-map-keys: Invalid value: "b": entries must all be names of item properties`},
		{"key not a scalar", `{type: object, properties: {l: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [a], items: {type: object, required: [a], properties: {a: {type: object}}}}}}`,
			`properties.l.items.properties.a.type: must be a scalar type if parent array's x-kubernetes-list-type is map`},
		{"keys without map", `{type: object, properties: {l: {type: array, x-kubernetes-list-map-keys: [a], items: {type: object, required: [a], properties: {a: {type: string}}}}}}`,
			`properties.l.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`},
		{"unknown map type", `{type: object, properties: {m: {type: object, x-kubernetes-map-type: loose}}}`,
			`properties.m.x-kubernetes-map-type: Unsupported value: "loose"`},
		{"map type on a string", `{type: object, properties: {m: {type: string, x-kubernetes-map-type: atomic}}}`,
			`properties.m.type: must be object if x-kubernetes-map-type is specified`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := compile(t, tt.schema)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile error = %v; want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestLibraries: the rules published definitions use compile and run with
// Kubernetes' CEL libraries.
func TestLibraries(t *testing.T) {
	t.Parallel()
	rules := []string{
		"quantity(self.q).isLessThan(quantity('2Gi'))",
		"isCIDR(self.cidr) && cidr(self.cidr).containsIP(ip(self.ip))",
		"isURL(self.url) && url(self.url).getHost() == 'example.com'",
		"self.url.matches('^https://')",
		"[1, 2, 3].isSorted() && self.tags.indexOf('b') == 1",
		"!format.dns1123Label().validate(self.name).hasValue()",
		"isSemver(self.version) && semver(self.version).isGreaterThan(semver('1.0.0'))",
	}
	var b strings.Builder
	b.WriteString(`{type: object, properties: {spec: {type: object, properties: {q: {type: string, maxLength: 20}, cidr: {type: string, maxLength: 50}, ip: {type: string, maxLength: 50}, url: {type: string, maxLength: 100}, name: {type: string, maxLength: 63}, version: {type: string, maxLength: 20}, tags: {type: array, maxItems: 10, items: {type: string, maxLength: 10}}}, x-kubernetes-validations: [`)
	for i, r := range rules {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{rule: "` + r + `", message: "` + strings.ReplaceAll(r, `'`, ``) + `"}`)
	}
	b.WriteString("]}}}")
	v := mustCompile(t, b.String())
	good := obj(`{"q":"1Gi","cidr":"10.0.0.0/8","ip":"10.1.2.3","url":"https://example.com/x","name":"web","version":"1.2.3","tags":["a","b"]}`)
	if causes, err := v.Validate(context.Background(), good, nil); err != nil || len(causes) > 0 {
		t.Errorf("valid object: %v %s", err, render(causes))
	}
	bad := obj(`{"q":"3Gi","cidr":"10.0.0.0/8","ip":"192.168.0.1","url":"http://other.org","name":"Web_1","version":"0.9.0","tags":["b"]}`)
	causes, err := v.Validate(context.Background(), bad, nil)
	if err != nil || len(causes) != len(rules) {
		t.Errorf("invalid object: %v; want %d causes, got\n%s", err, len(rules), render(causes))
	}
}
