package convert

import (
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The operations rules make on a document. Every document handed to them
// is a JSON object (or, inside forEach, a list element) that the caller
// owns: Convert copies the object before the first change.

// get returns the value at p; the root path is the whole document.
func get(doc []byte, p path) gjson.Result {
	if p.isRoot() {
		return gjson.ParseBytes(doc)
	}
	return gjson.GetBytes(doc, p.get)
}

// setRaw puts the JSON value raw at p, creating the objects on the way.
func setRaw(doc []byte, p path, raw []byte) ([]byte, error) {
	if p.isRoot() {
		return append([]byte(nil), raw...), nil
	}
	out, err := sjson.SetRawBytes(doc, p.set, raw)
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", p, err)
	}
	return out, nil
}

// remove deletes the value at p and then every object the deletion left
// empty, except members of the document itself: a move out of a nested
// object must not leave an empty object behind (the target would prune it
// and the way back would not recreate it), but spec and status stay, as
// schemas often require them. Removing an absent path does nothing.
func remove(doc []byte, p path) ([]byte, error) {
	for len(p.keys) > 2 {
		parent := p.parent()
		if !holdsOnly(gjson.GetBytes(doc, parent.get), p.keys[len(p.keys)-1]) {
			break
		}
		p = parent
	}
	if !gjson.GetBytes(doc, p.get).Exists() {
		return doc, nil
	}
	out, err := sjson.DeleteBytes(doc, p.set)
	if err != nil {
		return nil, fmt.Errorf("delete %s: %w", p, err)
	}
	return out, nil
}

// holdsOnly reports whether v is an object whose one member is key.
func holdsOnly(v gjson.Result, key string) bool {
	if !v.IsObject() {
		return false
	}
	n, found := 0, false
	v.ForEach(func(k, _ gjson.Result) bool {
		n++
		found = found || k.Str == key
		return n < 2
	})
	return n == 1 && found
}

// relocate writes raw at to and removes from. Writing first keeps the
// parents of from alive when they also hold to; when one path is inside
// the other, from must go first or it would take the new value with it.
func relocate(doc []byte, from, to path, raw []byte) ([]byte, error) {
	var err error
	if from.overlaps(to) {
		if doc, err = remove(doc, from); err != nil {
			return nil, err
		}
		return setRaw(doc, to, raw)
	}
	if doc, err = setRaw(doc, to, raw); err != nil {
		return nil, err
	}
	return remove(doc, from)
}
