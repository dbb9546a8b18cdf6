package convert

import (
	"strings"

	"github.com/tidwall/gjson"
)

// traced is the shape of an object as the rules before a step have left
// it: the schema converted from (base), with what each earlier rule wrote
// on top, in order. It is how Bind knows the type of a value a rule reads
// at a path the version's schema does not have (a field moved there by
// an earlier rule), and the type a value has after a rule that changes it
// (coerce, wrap, split, join). A field moved away keeps its old shape in
// base: a rule that reads it then finds nothing in the object, so its
// type does not matter.
type traced struct {
	base  Shape // nil: no field but those the edits make
	edits []edit
}

// edit says that a rule wrote a value of shape s at keys.
type edit struct {
	keys []string
	s    Shape
}

// Field is the field of base, or the value an edit wrote there last, with
// the edits written inside it after that.
func (t traced) Field(name string) (Shape, bool) {
	var base Shape
	ok := false
	if t.base != nil {
		base, ok = t.base.Field(name)
	}
	var inside []edit
	for _, e := range t.edits {
		switch {
		case e.keys[0] != name:
		case len(e.keys) == 1:
			base, ok, inside = e.s, true, nil // written whole: what was there is gone
		default:
			inside = append(inside, edit{keys: e.keys[1:], s: e.s})
		}
	}
	if len(inside) == 0 {
		return base, ok
	}
	if !ok {
		base = nil
	}
	return traced{base: base, edits: inside}, true
}

// Items are base's: edits address objects' fields, and forEach rewrites
// a list whole.
func (t traced) Items() (Shape, bool) {
	if t.base == nil {
		return nil, false
	}
	return t.base.Items()
}

// Type is base's; a field made only by edits inside it is an object.
func (t traced) Type() string {
	if t.base != nil && t.base.Type() != "" {
		return t.base.Type()
	}
	if len(t.edits) > 0 {
		return "object"
	}
	return ""
}

// with returns t where the value at p has shape s. The edits are copied,
// not shared, so that earlier shapes stay as they were.
func (t traced) with(p path, s Shape) traced {
	if p.isRoot() {
		return traced{base: s} // the item itself, inside forEach
	}
	edits := make([]edit, len(t.edits), len(t.edits)+1)
	copy(edits, t.edits)
	return traced{base: t.base, edits: append(edits, edit{keys: p.keys, s: s})}
}

// listOf is the shape of a list whose items have shape items.
type listOf struct{ items Shape }

func (listOf) Field(string) (Shape, bool) { return nil, false }
func (l listOf) Items() (Shape, bool)     { return l.items, true }
func (listOf) Type() string               { return "array" }

// valueShape is the shape of a constant that set or default writes, read
// from its JSON.
type valueShape struct{ v gjson.Result }

func (s valueShape) Field(name string) (Shape, bool) {
	if !s.v.IsObject() {
		return nil, false
	}
	f := s.v.Get(gjson.Escape(name))
	return valueShape{f}, f.Exists()
}

// Items is the shape of the first item; an empty list's items can be
// anything.
func (s valueShape) Items() (Shape, bool) {
	if !s.v.IsArray() {
		return nil, false
	}
	if first := s.v.Get("0"); first.Exists() {
		return valueShape{first}, true
	}
	return anyShape{}, true
}

func (s valueShape) Type() string {
	switch s.v.Type {
	case gjson.String:
		return typeString
	case gjson.True, gjson.False:
		return typeBoolean
	case gjson.Number:
		if strings.ContainsAny(s.v.Raw, ".eE") {
			return typeNumber
		}
		return typeInteger
	}
	switch {
	case s.v.IsObject():
		return "object"
	case s.v.IsArray():
		return "array"
	}
	return "" // null
}

// shapeAt is the shape of the value at p as the rules before have left
// it; anyShape, of no type, when nothing tells.
func (b *binding) shapeAt(p path) Shape {
	found, ok, _ := resolve(b.now, p, b.root)
	if !ok || found == nil {
		return anyShape{}
	}
	return found
}

// follow records the shape of what r writes, for the rules after it.
// forEach is followed by bind, which has its items' shapes; mapValues
// keeps the type (strings become strings), and delete, toAnnotation and
// toLabel write nothing a later rule reads with a type of its own
// (labels and annotations are strings).
func (b *binding) follow(r rule) {
	switch x := r.(type) {
	case move:
		b.now = b.now.with(x.to, b.shapeAt(x.from))
	case copyRule:
		b.now = b.now.with(x.to, b.shapeAt(x.from))
	case set:
		b.now = b.now.with(x.path, valueShape{gjson.Parse(x.value)})
	case defaultRule:
		if b.shapeAt(x.path).Type() == "" { // when present, the value keeps its type
			b.now = b.now.with(x.path, valueShape{gjson.Parse(x.value)})
		}
	case wrap:
		b.now = b.now.with(x.to, listOf{b.shapeAt(x.from)})
	case unwrap:
		b.now = b.now.with(x.to, unwrapped(b.shapeAt(x.from)))
	case split:
		b.now = b.now.with(x.to, splitInto(b.shapeAt(x.from)))
	case join:
		b.now = b.now.with(x.to, joinedInto(b.shapeAt(x.from)))
	case coerce:
		b.now = b.now.with(x.path, typed(x.to))
	case fromMeta:
		b.now = b.now.with(x.to, typedOrAny(x.typ))
	}
}

// unwrapped is the shape of a list's first item; a value that is no list
// moves as it is.
func unwrapped(s Shape) Shape {
	if items, ok := s.Items(); ok {
		return items
	}
	return s
}

// splitInto is the shape split leaves: a list of strings, unless the value
// is known to be no string, which moves as it is.
func splitInto(s Shape) Shape {
	if t := s.Type(); t != "" && t != typeString {
		return s
	}
	return listOf{typed(typeString)}
}

// joinedInto is the shape join leaves: a string, unless the value is
// known to be no list, which moves as it is.
func joinedInto(s Shape) Shape {
	if t := s.Type(); t != "" && t != "array" {
		return s
	}
	return typed(typeString)
}

func typedOrAny(t string) Shape {
	if t == "" {
		return anyShape{}
	}
	return typed(t)
}
