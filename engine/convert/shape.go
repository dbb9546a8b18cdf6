package convert

// Shape describes one version's schema to Bind: which fields exist and of
// what type. The registry implements it over each version's
// openAPIV3Schema; convert stays free of schemas.
type Shape interface {
	// Field returns the schema of an object's field (a property, or
	// additionalProperties); ok is false when the schema has no such field.
	// A schema that keeps unknown fields has every field.
	Field(name string) (s Shape, ok bool)
	// Items returns the schema of a list's items; ok is false for no list.
	Items() (s Shape, ok bool)
	// Type is the JSON Schema type: object, array, string, integer,
	// number or boolean; "" when the schema does not say.
	Type() string
}

// anyShape is a schema that says nothing: every field exists, of no
// particular type. It stands for a version without a schema.
type anyShape struct{}

func (anyShape) Field(string) (Shape, bool) { return anyShape{}, true }
func (anyShape) Items() (Shape, bool)       { return anyShape{}, true }
func (anyShape) Type() string               { return "" }

// typed is a schema of a known type with nothing inside: a label's value.
type typed string

func (typed) Field(string) (Shape, bool) { return nil, false }
func (typed) Items() (Shape, bool)       { return nil, false }
func (t typed) Type() string             { return string(t) }

// stringMap is the schema of metadata.labels and metadata.annotations.
type stringMap struct{}

func (stringMap) Field(string) (Shape, bool) { return typed(typeString), true }
func (stringMap) Items() (Shape, bool)       { return nil, false }
func (stringMap) Type() string               { return "object" }

// resolve finds the schema of the field at p. At an object's root, it
// refuses apiVersion and kind (Convert sets them) and metadata but for its
// labels and annotations (the rest belongs to the server): forbidden then
// says why, and no earlier rule can make the path right.
func resolve(s Shape, p path, root bool) (found Shape, ok bool, forbidden string) {
	keys := p.keys
	if root && len(keys) > 0 {
		switch keys[0] {
		case "apiVersion", "kind":
			return nil, false, "apiVersion and kind are set by the conversion itself"
		case "metadata":
			if len(keys) < 2 || len(keys) > 3 || keys[1] != labels && keys[1] != annotations {
				return nil, false, "only metadata.labels and metadata.annotations (or one of them) can be converted"
			}
			s, keys = stringMap{}, keys[2:]
		}
	}
	for _, k := range keys {
		if s, ok = s.Field(k); !ok {
			return nil, false, ""
		}
	}
	return s, true, ""
}
