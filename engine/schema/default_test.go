package schema

import (
	"strconv"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestDefault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, in, want string
	}{
		{
			name:   "missing property",
			schema: spec(`"replicas":{"type":"integer","default":1},"name":{"type":"string"}`),
			in:     `{"spec":{"name":"n"}}`,
			want:   `{"spec":{"name":"n","replicas":1}}`,
		},
		{
			name:   "present property kept",
			schema: spec(`"replicas":{"type":"integer","default":1}`),
			in:     `{"spec":{"replicas":0}}`,
			want:   `{"spec":{"replicas":0}}`,
		},
		{
			name:   "missing parent not created without its own default",
			schema: spec(`"o":{"type":"object","properties":{"a":{"type":"string","default":"x"}}}`),
			in:     `{"spec":{}}`,
			want:   `{"spec":{}}`,
		},
		{
			name:   "object default defaulted deeper",
			schema: spec(`"o":{"type":"object","default":{"a":"set"},"properties":{"a":{"type":"string"},"b":{"type":"string","default":"deep"}}}`),
			in:     `{"spec":{}}`,
			want:   `{"spec":{"o":{"a":"set","b":"deep"}}}`,
		},
		{
			name:   "defaults inside array items",
			schema: spec(`"l":{"type":"array","items":{"type":"object","properties":{"p":{"type":"string","default":"TCP"}}}}`),
			in:     `{"spec":{"l":[{},{"p":"UDP"},{"q":1}]}}`,
			want:   `{"spec":{"l":[{"p":"TCP"},{"p":"UDP"},{"q":1,"p":"TCP"}]}}`,
		},
		{
			name:   "defaults inside additionalProperties maps",
			schema: spec(`"m":{"type":"object","additionalProperties":{"type":"object","properties":{"w":{"type":"integer","default":100}}}}`),
			in:     `{"spec":{"m":{"a.b":{},"c":{"w":1}}}}`,
			want:   `{"spec":{"m":{"a.b":{"w":100},"c":{"w":1}}}}`,
		},
		{
			name:   "non-nullable null takes the default",
			schema: spec(`"a":{"type":"string","default":"x"}`),
			in:     `{"spec":{"a":null}}`,
			want:   `{"spec":{"a":"x"}}`,
		},
		{
			name:   "non-nullable null without default is removed",
			schema: spec(`"a":{"type":"string"},"o":{"type":"object","properties":{"b":{"type":"integer"}}}`),
			in:     `{"spec":{"a":null,"o":{"b":null}}}`,
			want:   `{"spec":{"o":{}}}`,
		},
		{
			name:   "nullable null kept even with a default",
			schema: spec(`"a":{"type":"string","nullable":true,"default":"x"}`),
			in:     `{"spec":{"a":null}}`,
			want:   `{"spec":{"a":null}}`,
		},
		{
			name:   "null of an unknown field kept",
			schema: `{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"spec":{"type":"object"}}}`,
			in:     `{"free":null,"spec":{}}`,
			want:   `{"free":null,"spec":{}}`,
		},
		{
			name:   "null array items take the items default, or stay",
			schema: spec(`"d":{"type":"array","items":{"type":"string","default":"x"}},"n":{"type":"array","items":{"type":"string"}}`),
			in:     `{"spec":{"d":[null,"y"],"n":[null]}}`,
			want:   `{"spec":{"d":["x","y"],"n":[null]}}`,
		},
		{
			name:   "null map values take the additionalProperties default",
			schema: spec(`"m":{"type":"object","additionalProperties":{"type":"integer","default":1}}`),
			in:     `{"spec":{"m":{"a":null,"b":2}}}`,
			want:   `{"spec":{"m":{"a":1,"b":2}}}`,
		},
		{
			name:   "metadata and type meta left alone",
			schema: `{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string","default":"d"}}},"kind":{"type":"string","default":"K"}}}`,
			in:     `{"metadata":{"labels":null}}`,
			want:   `{"metadata":{"labels":null}}`,
		},
		{
			name:   "many defaulted properties in one object",
			schema: spec(manyDefaults(20)),
			in:     `{"spec":{"p3":"set"}}`,
			want:   `{"spec":{"p3":"set","p0":"d","p1":"d","p10":"d","p11":"d","p12":"d","p13":"d","p14":"d","p15":"d","p16":"d","p17":"d","p18":"d","p19":"d","p2":"d","p4":"d","p5":"d","p6":"d","p7":"d","p8":"d","p9":"d"}}`,
		},
		{
			name:   "default text kept as written",
			schema: spec(`"r":{"type":"string","default":"a < b && c"}`),
			in:     `{"spec":{}}`,
			want:   `{"spec":{"r":"a < b && c"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mustCompile(t, tt.schema).Default([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			jsoneq.Assert(t, got, tt.want)
		})
	}
}

func manyDefaults(n int) string {
	props := ""
	for i := range n {
		if i > 0 {
			props += ","
		}
		props += `"p` + strconv.Itoa(i) + `":{"type":"string","default":"d"}`
	}
	return props
}

// TestDefaultUnchanged checks that an object needing no default comes back
// as the very same bytes.
func TestDefaultUnchanged(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, spec(`"a":{"type":"string","default":"x"},"n":{"type":"string","nullable":true}`))
	for _, in := range []string{`{"spec":{"a":"y"}}`, `{"spec":{"a":"y","n":null}}`, `{}`} {
		obj := []byte(in)
		got, err := s.Default(obj)
		if err != nil || &got[0] != &obj[0] {
			t.Errorf("Default(%s) = %s, %v; want the input itself", in, got, err)
		}
	}
}

func TestDefaultNotAnObject(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, spec(`"a":{"type":"string","default":"x"}`))
	for _, in := range []string{`[]`, `"x"`, `null`} {
		if _, err := s.Default([]byte(in)); engine.ErrorCode(err) != engine.CodeBadRequest {
			t.Errorf("Default(%s) error = %v, want BadRequest", in, err)
		}
	}
}

// TestDefaultStored checks defaulting on read: defaults as on a write, but a
// null without a default stays, and an object that has every default is
// returned as the very same bytes.
func TestDefaultStored(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, in, want string
		changed                bool
	}{
		{
			name:    "a default the schema gained later",
			schema:  spec(`"replicas":{"type":"integer","default":1},"name":{"type":"string"}`),
			in:      `{"spec":{"name":"n"}}`,
			want:    `{"spec":{"name":"n","replicas":1}}`,
			changed: true,
		},
		{
			name:    "defaults inside array items",
			schema:  spec(`"l":{"type":"array","items":{"type":"object","properties":{"p":{"type":"string","default":"TCP"}}}}`),
			in:      `{"spec":{"l":[{},{"p":"UDP"}]}}`,
			want:    `{"spec":{"l":[{"p":"TCP"},{"p":"UDP"}]}}`,
			changed: true,
		},
		{
			name:    "non-nullable null takes the default",
			schema:  spec(`"a":{"type":"string","default":"x"}`),
			in:      `{"spec":{"a":null}}`,
			want:    `{"spec":{"a":"x"}}`,
			changed: true,
		},
		{
			name:    "null items and map values take their schema's default",
			schema:  spec(`"l":{"type":"array","items":{"type":"string","default":"x"}},"m":{"type":"object","additionalProperties":{"type":"integer","default":1}}`),
			in:      `{"spec":{"l":[null,"y"],"m":{"a":null,"b":2}}}`,
			want:    `{"spec":{"l":["x","y"],"m":{"a":1,"b":2}}}`,
			changed: true,
		},
		{
			name:    "members after the last defaulted one",
			schema:  spec(`"a":{"type":"string","default":"x"},"z":{"type":"object","properties":{"b":{"type":"string","default":"y"}}}`),
			in:      `{"spec":{"a":"set","q":[1,{"b":null}],"z":{}}}`,
			want:    `{"spec":{"a":"set","q":[1,{"b":null}],"z":{"b":"y"}}}`,
			changed: true,
		},
		{
			name:   "non-nullable null without default stays",
			schema: spec(`"a":{"type":"string"},"d":{"type":"string","default":"x"}`),
			in:     `{"spec":{"a":null,"d":"y"}}`,
			want:   `{"spec":{"a":null,"d":"y"}}`,
		},
		{
			name:   "every default already there",
			schema: spec(`"a":{"type":"string","default":"x"},"n":{"type":"string","nullable":true}`),
			in:     `{"spec":{"a":"y","n":null}}`,
			want:   `{"spec":{"a":"y","n":null}}`,
		},
		{
			name:   "a schema without defaults",
			schema: spec(`"a":{"type":"string"}`),
			in:     `{"spec":{"a":null}}`,
			want:   `{"spec":{"a":null}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := []byte(tt.in)
			got, changed := mustCompile(t, tt.schema).DefaultStored(obj)
			jsoneq.Assert(t, got, tt.want)
			if changed != tt.changed || !changed && &got[0] != &obj[0] {
				t.Errorf("DefaultStored(%s) changed = %v, want %v (and the input itself when unchanged)", tt.in, changed, tt.changed)
			}
		})
	}
}

func TestHasDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		schema string
		want   bool
	}{
		{spec(`"a":{"type":"string"}`), false},
		{spec(`"a":{"type":"string","default":"x"}`), true},
		{spec(`"l":{"type":"array","items":{"type":"object","properties":{"p":{"type":"string","default":"TCP"}}}}`), true},
		{`{"type":"object","x-kubernetes-preserve-unknown-fields":true}`, false},
	}
	for _, tt := range tests {
		if got := mustCompile(t, tt.schema).HasDefaults(); got != tt.want {
			t.Errorf("HasDefaults(%s) = %v, want %v", tt.schema, got, tt.want)
		}
	}
}
