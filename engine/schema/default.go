package schema

import (
	"bytes"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
	"github.com/tidwall/gjson"
)

// Default applies the schema's defaults as kube-apiserver does for custom
// resources: a missing property with a default gets it (a default is itself
// defaulted deeper), in objects, array items and additionalProperties maps
// alike; a null where the schema is not nullable takes the default, or is
// removed when there is none. obj must be valid JSON; when nothing changes,
// obj itself is returned. Errors: BadRequest when obj is not a JSON object.
func (s *Schema) Default(obj []byte) ([]byte, error) {
	root := gjson.Parse(jsonscan.View(obj)) // read in place: the answer is built anew
	if !root.IsObject() {
		return nil, engine.Errorf(engine.CodeBadRequest, "object must be a JSON object")
	}
	return applyDefaults(root, obj, s.root), nil
}

// HasDefaults reports whether some property of the schema has a default.
// It is decided once, when the schema is compiled: a read skips
// DefaultStored altogether when it is false.
func (s *Schema) HasDefaults() bool {
	return s.root.defaults
}

// DefaultStored applies the schema's defaults to an object read from
// storage, as kube-apiserver does when it decodes one from etcd: a missing
// property with a default gets it, and so does a non-nullable null; unlike
// Default, a null without a default stays (kube-apiserver prunes those
// from requests only). It reports whether anything changed; when nothing
// did, obj itself is returned. Only the subtrees that hold a default are
// walked, and first by a quick check that builds nothing (see lacks).
// obj must be a valid JSON object (as stored objects are).
func (s *Schema) DefaultStored(obj []byte) ([]byte, bool) {
	if !s.lacksDefaults(obj) {
		return obj, false
	}
	d := defaulter{keepNulls: true}
	if out := d.value(gjson.Parse(jsonscan.View(obj)), s.root); out != nil {
		return out, true
	}
	return obj, false
}

// applyDefaults is Default for any structural node, used for defaults too.
func applyDefaults(v gjson.Result, raw []byte, n *node) []byte {
	// Why: most writes carry no null, and then only subtrees holding a
	// property default need a walk; a schema without defaults costs one scan.
	d := defaulter{nulls: bytes.Contains(raw, []byte("null"))}
	if out := d.value(v, n); out != nil {
		return out
	}
	return raw
}

// defaulter walks a document and its structural schema together.
type defaulter struct {
	nulls bool // the document may contain a null literal
	// keepNulls keeps a non-nullable null that has no default (reads).
	keepNulls bool
}

// value returns the defaulted form of v, or nil when v needs no change.
func (d defaulter) value(v gjson.Result, n *node) []byte {
	if n == nil || (!d.nulls && !n.defaults) {
		return nil
	}
	switch {
	case v.IsObject():
		return d.object(v, n)
	case v.IsArray():
		return d.array(v, n.items)
	}
	return nil
}

func (d defaulter) object(v gjson.Result, n *node) []byte {
	var changes []change
	var seenBuf [16]bool // which defaulted properties are present
	seen := seenBuf[:]
	if len(n.defaulted) > len(seenBuf) {
		seen = make([]bool, len(n.defaulted))
	}
	i, visited := 0, 0
	v.ForEach(func(k, x gjson.Result) bool {
		c := n.child(k.Str)
		if c != nil && c.slot > 0 {
			seen[c.slot-1] = true
		}
		if ch, ok := d.member(x, i, c); ok {
			changes = append(changes, ch)
		}
		i++
		if c != nil && (c.def != nil || c.defaults) {
			visited++
		}
		// Without nulls to replace, the members after the last one that
		// needs a visit need none: skip the rest of the object.
		return d.nulls || visited != n.needed
	})
	var extra [][]byte
	for j, m := range n.defaulted {
		if !seen[j] {
			extra = append(extra, m)
		}
	}
	if changes == nil && extra == nil {
		return nil
	}
	return rebuild(v, changes, extra)
}

// member defaults the i-th member x of an object or array, whose schema is c.
func (d defaulter) member(x gjson.Result, i int, c *node) (change, bool) {
	if c == nil {
		return change{}, false
	}
	if x.Type == gjson.Null && !c.nullable && (c.def != nil || !d.keepNulls) {
		// As kube-apiserver: a non-nullable null takes the default, or is
		// pruned when there is none (array items without one stay).
		return change{index: i, raw: c.def, drop: c.def == nil}, true
	}
	raw := d.value(x, c)
	return change{index: i, raw: raw}, raw != nil
}

func (d defaulter) array(v gjson.Result, items *node) []byte {
	var changes []change
	i := 0
	v.ForEach(func(_, x gjson.Result) bool {
		// A null item without a default stays: only members are pruned.
		if ch, ok := d.member(x, i, items); ok && !ch.drop {
			changes = append(changes, ch)
		}
		i++
		return true
	})
	if changes == nil {
		return nil
	}
	return rebuild(v, changes, nil)
}
