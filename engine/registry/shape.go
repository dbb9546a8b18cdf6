package registry

import (
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/convert"
)

// shape is a version's openAPIV3Schema as convert.Bind reads it: which
// fields exist and their types. any stands for a schema that keeps
// unknown fields, where every field exists.
type shape struct {
	s   gjson.Result
	any bool
}

var _ convert.Shape = shape{}

// shapes returns the shape of every version of r, by name; a version
// without a schema has none (nil), which Bind reads as any.
func shapes(r *Resource) map[string]convert.Shape {
	out := make(map[string]convert.Shape, len(r.Versions))
	for _, v := range r.Versions {
		out[v.Name] = nil
		if v.Schema != nil {
			out[v.Name] = shape{s: gjson.ParseBytes(v.Schema.Raw())}
		}
	}
	return out
}

// Field returns a property, or additionalProperties' schema; every field
// of an object that keeps unknown fields.
func (s shape) Field(name string) (convert.Shape, bool) {
	if s.any {
		return s, true
	}
	if p := s.s.Get("properties." + gjson.Escape(name)); p.Exists() {
		return shape{s: p}, true
	}
	switch ap := s.s.Get("additionalProperties"); {
	case ap.IsObject():
		return shape{s: ap}, true
	case ap.Type == gjson.True || s.preserves():
		return shape{any: true}, true
	}
	return nil, false
}

// Items returns the schema of a list's items.
func (s shape) Items() (convert.Shape, bool) {
	if s.any {
		return s, true
	}
	if items := s.s.Get("items"); items.IsObject() {
		return shape{s: items}, true
	}
	if s.preserves() {
		return shape{any: true}, true
	}
	return nil, false
}

// Type is the schema's type; "" when it says none or allows two
// (x-kubernetes-int-or-string).
func (s shape) Type() string {
	if s.any || s.s.Get("x-kubernetes-int-or-string").Bool() {
		return ""
	}
	return s.s.Get("type").Str
}

func (s shape) preserves() bool {
	return s.s.Get("x-kubernetes-preserve-unknown-fields").Bool()
}
