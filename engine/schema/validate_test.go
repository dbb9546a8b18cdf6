package schema

import (
	"reflect"
	"sync"
	"testing"

	"github.com/dynapi/dynapi/engine"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, obj string
		want              []engine.FieldError
	}{
		{
			name:   "valid",
			schema: spec(`"replicas":{"type":"integer","minimum":1}`),
			obj:    `{"spec":{"replicas":1}}`,
		},
		{
			name:   "type, as kube-apiserver words it",
			schema: spec(`"replicas":{"type":"integer"}`),
			obj:    `{"spec":{"replicas":"abc"}}`,
			want: []engine.FieldError{{Type: engine.CauseTypeInvalid, Path: "spec.replicas",
				Message: `Invalid value: "string": spec.replicas in body must be of type integer: "string"`}},
		},
		{
			name:   "every problem, sorted by path",
			schema: spec(`"b":{"type":"string","maxLength":5},"a":{"type":"integer","minimum":1},"c":{"type":"string","enum":["a","b"]}`),
			obj:    `{"spec":{"c":"x","b":"abcdefg","a":0}}`,
			want: []engine.FieldError{
				{Type: engine.CauseInvalid, Path: "spec.a", Message: "Invalid value: 0: spec.a in body should be greater than or equal to 1"},
				{Type: engine.CauseTooLong, Path: "spec.b", Message: "Too long: may not be more than 5 bytes"},
				{Type: engine.CauseNotSupported, Path: "spec.c", Message: `Unsupported value: "x": supported values: "a", "b"`},
			},
		},
		{
			name:   "required at the root and below",
			schema: `{"type":"object","required":["spec","status"],"properties":{"spec":{"type":"object","required":["x"]},"status":{"type":"object"}}}`,
			obj:    `{"spec":{}}`,
			want: []engine.FieldError{
				{Type: engine.CauseRequired, Path: "spec.x", Message: "Required value"},
				{Type: engine.CauseRequired, Path: "status", Message: "Required value"},
			},
		},
		{
			name:   "array indexes, numeric and dotted map keys",
			schema: spec(`"l":{"type":"array","items":{"type":"object","properties":{"n":{"type":"string"}}}},"m":{"type":"object","additionalProperties":{"type":"string"}}`),
			obj:    `{"spec":{"l":[{"n":"a"},{"n":1}],"m":{"0":1,"a.b/c":2,"x~y":3}}}`,
			want: []engine.FieldError{
				{Type: engine.CauseTypeInvalid, Path: "spec.l[1].n", Message: `Invalid value: "integer": spec.l[1].n in body must be of type string: "integer"`},
				{Type: engine.CauseTypeInvalid, Path: "spec.m.0", Message: `Invalid value: "integer": spec.m.0 in body must be of type string: "integer"`},
				{Type: engine.CauseTypeInvalid, Path: "spec.m.x~y", Message: `Invalid value: "integer": spec.m.x~y in body must be of type string: "integer"`},
				{Type: engine.CauseTypeInvalid, Path: "spec.m[a.b/c]", Message: `Invalid value: "integer": spec.m[a.b/c] in body must be of type string: "integer"`},
			},
		},
		{
			name:   "apiVersion, kind and metadata left to other code",
			schema: `{"type":"object","required":["apiVersion"],"properties":{"apiVersion":{"type":"integer"},"kind":{"enum":["K"]},"metadata":{"type":"object","properties":{"labels":{"type":"string"}}}}}`,
			obj:    `{"kind":"X","metadata":{"labels":{"a":"b"}}}`,
		},
		{
			name:   "metadata name and generateName rules applied",
			schema: `{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z]+$"},"generateName":{"type":"string","maxLength":3}}}}}`,
			obj:    `{"metadata":{"name":"A1","generateName":"abcd"}}`,
			want: []engine.FieldError{
				{Type: engine.CauseTooLong, Path: "metadata.generateName", Message: "Too long: may not be more than 3 bytes"},
				{Type: engine.CauseInvalid, Path: "metadata.name", Message: `Invalid value: "A1": metadata.name in body should match '^[a-z]+$'`},
			},
		},
		{
			name:   "large and fractional numbers",
			schema: spec(`"i":{"type":"integer","maximum":100},"f":{"type":"number","minimum":0.5},"big":{"type":"integer"}`),
			obj:    `{"spec":{"i":1000000,"f":0.25,"big":12345678901234567890}}`,
			want: []engine.FieldError{
				{Type: engine.CauseInvalid, Path: "spec.f", Message: "Invalid value: 0.25: spec.f in body should be greater than or equal to 0.5"},
				{Type: engine.CauseInvalid, Path: "spec.i", Message: "Invalid value: 1000000: spec.i in body should be less than or equal to 100"},
			},
		},
		{
			name:   "enum of objects rendered as JSON",
			schema: spec(`"o":{"type":"object","enum":[{"b":1,"a":2}]}`),
			obj:    `{"spec":{"o":{"z":true,"a":[1]}}}`,
			want: []engine.FieldError{{Type: engine.CauseNotSupported, Path: "spec.o",
				Message: `Unsupported value: {"a":[1],"z":true}: supported values: "{\"a\":2,\"b\":1}"`}},
		},
		{
			name:   "nullable accepts null, others do not",
			schema: spec(`"n":{"type":"string","nullable":true},"s":{"type":"string"}`),
			obj:    `{"spec":{"n":null,"s":null}}`,
			want: []engine.FieldError{{Type: engine.CauseTypeInvalid, Path: "spec.s",
				Message: `Invalid value: "null": spec.s in body must be of type string: "null"`}},
		},
		{
			name:   "the closest anyOf branch explains the failure",
			schema: spec(`"q":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer","minimum":0},{"type":"string","pattern":"^[0-9]+m$"}]}`),
			obj:    `{"spec":{"q":"5k"}}`,
			want: []engine.FieldError{
				{Type: engine.CauseInvalid, Path: "spec.q", Message: `Invalid value: "": "spec.q" must validate at least one schema (anyOf)`},
				{Type: engine.CauseInvalid, Path: "spec.q", Message: `Invalid value: "5k": spec.q in body should match '^[0-9]+m$'`},
			},
		},
		{
			name:   "allOf with no branch valid",
			schema: spec(`"n":{"type":"integer","allOf":[{"minimum":5},{"multipleOf":2}]}`),
			obj:    `{"spec":{"n":3}}`,
			want: []engine.FieldError{
				{Type: engine.CauseInvalid, Path: "spec.n", Message: `Invalid value: "": "spec.n" must validate all the schemas (allOf). None validated`},
				{Type: engine.CauseInvalid, Path: "spec.n", Message: "Invalid value: 3: spec.n in body should be a multiple of 2"},
				{Type: engine.CauseInvalid, Path: "spec.n", Message: "Invalid value: 3: spec.n in body should be greater than or equal to 5"},
			},
		},
		{
			name:   "the anyOf branch with the fewest problems explains the failure",
			schema: spec(`"s":{"type":"string","anyOf":[{"minLength":5,"pattern":"^a"},{"maxLength":1}]}`),
			obj:    `{"spec":{"s":"bcd"}}`,
			want: []engine.FieldError{
				{Type: engine.CauseInvalid, Path: "spec.s", Message: `Invalid value: "": "spec.s" must validate at least one schema (anyOf)`},
				{Type: engine.CauseTooLong, Path: "spec.s", Message: "Too long: may not be more than 1 byte"},
			},
		},
		{
			name:   "JSON Schema 2020-12 exclusive bounds",
			schema: spec(`"n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`),
			obj:    `{"spec":{"n":1}}`,
			want: []engine.FieldError{{Type: engine.CauseInvalid, Path: "spec.n",
				Message: "Invalid value: 1: spec.n in body should be less than 1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := mustCompile(t, tt.schema).Validate([]byte(tt.obj))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Validate() =\n%s\nwant\n%s", mustJSON(got), mustJSON(tt.want))
			}
		})
	}
}

// TestConcurrentUse runs the write path on one Schema from many goroutines;
// with -race it proves the compiled state is only read.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	s, err := Compile(readFile(t, "testdata/widget/schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	valid := readFile(t, "testdata/widget/valid/full.json")
	invalid := readFile(t, "testdata/widget/invalid/bad-spec.json")
	want := writePath(s, invalid)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if errs := writePath(s, valid); len(errs) > 0 {
					t.Errorf("valid object: %v", errs)
				}
				if got := writePath(s, invalid); !reflect.DeepEqual(got, want) {
					t.Errorf("invalid object: got %v, want %v", got, want)
				}
			}
		})
	}
	wg.Wait()
}
