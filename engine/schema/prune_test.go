package schema

import (
	"slices"
	"testing"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestPrune(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, in, want string
		removed                []string
	}{
		{
			name:    "unknown fields dropped, type and object meta kept whole",
			schema:  spec(`"a":{"type":"string"}`),
			in:      `{"apiVersion":"v1","kind":"K","metadata":{"name":"n","x":{"y":1}},"spec":{"a":"1","b":2},"status":{}}`,
			want:    `{"apiVersion":"v1","kind":"K","metadata":{"name":"n","x":{"y":1}},"spec":{"a":"1"}}`,
			removed: []string{"spec.b", "status"},
		},
		{
			name:   "metadata kept whole even when the schema declares it",
			schema: `{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string"}}}}}`,
			in:     `{"metadata":{"name":"n","labels":{"a":"b"}}}`,
			want:   `{"metadata":{"name":"n","labels":{"a":"b"}}}`,
		},
		{
			name:    "arrays of objects",
			schema:  spec(`"l":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}}}`),
			in:      `{"spec":{"l":[{"a":"x","b":1},{"a":"y"},{"c":[1]}]}}`,
			want:    `{"spec":{"l":[{"a":"x"},{"a":"y"},{}]}}`,
			removed: []string{"spec.l[0].b", "spec.l[2].c"},
		},
		{
			name:    "map values pruned by additionalProperties",
			schema:  spec(`"m":{"type":"object","additionalProperties":{"type":"object","properties":{"a":{"type":"string"}}}}`),
			in:      `{"spec":{"m":{"k.1":{"a":"x","b":1},"k2":{}}}}`,
			want:    `{"spec":{"m":{"k.1":{"a":"x"},"k2":{}}}}`,
			removed: []string{"spec.m[k.1].b"},
		},
		{
			name:   "additionalProperties true keeps values whole",
			schema: spec(`"m":{"type":"object","additionalProperties":true}`),
			in:     `{"spec":{"m":{"a":{"b":{"c":1}}}}}`,
			want:   `{"spec":{"m":{"a":{"b":{"c":1}}}}}`,
		},
		{
			name:    "object without properties drops every field",
			schema:  spec(`"o":{"type":"object"}`),
			in:      `{"spec":{"o":{"a":1,"b":2}}}`,
			want:    `{"spec":{"o":{}}}`,
			removed: []string{"spec.o.a", "spec.o.b"},
		},
		{
			name:    "array without items prunes its objects",
			schema:  spec(`"l":{"type":"array"}`),
			in:      `{"spec":{"l":[1,{"a":1},[{"b":2}]]}}`,
			want:    `{"spec":{"l":[1,{},[{}]]}}`,
			removed: []string{"spec.l[1].a", "spec.l[2][0].b"},
		},
		{
			name:    "preserve-unknown keeps unknown fields, prunes known ones",
			schema:  spec(`"p":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"k":{"type":"object","properties":{"a":{"type":"string"}}}}}`),
			in:      `{"spec":{"p":{"free":{"x":1},"k":{"a":"1","b":2}}}}`,
			want:    `{"spec":{"p":{"free":{"x":1},"k":{"a":"1"}}}}`,
			removed: []string{"spec.p.k.b"},
		},
		{
			name:   "preserve-unknown array without items keeps its items whole",
			schema: spec(`"l":{"type":"array","x-kubernetes-preserve-unknown-fields":true}`),
			in:     `{"spec":{"l":[{"a":{"b":1}},2]}}`,
			want:   `{"spec":{"l":[{"a":{"b":1}},2]}}`,
		},
		{
			name:   "preserve-unknown at the root keeps everything unknown",
			schema: `{"type":"object","x-kubernetes-preserve-unknown-fields":true}`,
			in:     `{"spec":{"anything":[{"x":1}]},"status":1}`,
			want:   `{"spec":{"anything":[{"x":1}]},"status":1}`,
		},
		{
			name:    "embedded resource keeps its type and object meta, less what ObjectMeta lacks, reported last",
			schema:  spec(`"e":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object"}}}`),
			in:      `{"spec":{"e":{"apiVersion":"v1","kind":"Pod","metadata":{"x":1,"name":"n"},"spec":{"y":2},"z":3}}}`,
			want:    `{"spec":{"e":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"n"},"spec":{}}}}`,
			removed: []string{"spec.e.spec.y", "spec.e.z", "spec.e.metadata.x"},
		},
		{
			name:    "type meta is pruned outside embedded resources",
			schema:  spec(`"o":{"type":"object","properties":{"a":{"type":"string"}}}`),
			in:      `{"spec":{"o":{"kind":"K","metadata":{}}}}`,
			want:    `{"spec":{"o":{}}}`,
			removed: []string{"spec.o.kind", "spec.o.metadata"},
		},
		{
			name:   "scalar where an object is expected is left to validation",
			schema: spec(`"o":{"type":"object","properties":{"a":{"type":"string"}}}`),
			in:     `{"spec":{"o":"text"}}`,
			want:   `{"spec":{"o":"text"}}`,
		},
		{
			name:    "escaped keys and formatting",
			schema:  spec(`"a\"b":{"type":"string"}`),
			in:      "{ \"spec\" : { \"a\\\"b\" : \"x\" ,\n \"c\\u0041\" : [ 1 , 2 ] } }",
			want:    `{"spec":{"a\"b":"x"}}`,
			removed: []string{"spec.cA"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, removed := mustCompile(t, tt.schema).Prune([]byte(tt.in))
			jsoneq.Assert(t, got, tt.want)
			if !slices.Equal(removed, tt.removed) {
				t.Errorf("removed = %q, want %q", removed, tt.removed)
			}
		})
	}
}

// TestPruneUnchanged checks that an object with nothing to prune comes back
// as the very same bytes, which spares the caller a copy.
func TestPruneUnchanged(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, spec(`"a":{"type":"string"},"l":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string"}}}}`))
	for _, in := range []string{`{"spec":{"a":"x","l":[{"b":"y"},{}]}}`, `[1]`, `"text"`} {
		obj := []byte(in)
		got, removed := s.Prune(obj)
		if &got[0] != &obj[0] || removed != nil {
			t.Errorf("Prune(%s) = %s, %q; want the input itself", in, got, removed)
		}
	}
}
