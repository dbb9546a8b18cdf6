package schema

import "github.com/tidwall/gjson"

// change replaces (raw) or drops one member of a JSON object or array,
// found by its position.
type change struct {
	index int
	raw   []byte
	drop  bool
}

// rebuild writes the object or array v with changes (sorted by index)
// applied and extra members (complete `"key":value` pairs) appended. Walks
// call it only on the path to a change, so an object that needs nothing is
// never copied.
func rebuild(v gjson.Result, changes []change, extra [][]byte) []byte {
	open, end := byte('['), byte(']')
	isObject := v.IsObject()
	if isObject {
		open, end = '{', '}'
	}
	size := len(v.Raw)
	for _, c := range changes {
		size += len(c.raw)
	}
	for _, m := range extra {
		size += len(m) + 1
	}
	out := append(make([]byte, 0, size), open)
	i, next := 0, 0
	v.ForEach(func(k, x gjson.Result) bool {
		raw := []byte(nil)
		if next < len(changes) && changes[next].index == i {
			raw = changes[next].raw
			if changes[next].drop {
				next, i = next+1, i+1
				return true
			}
			next++
		}
		out = comma(out, open)
		if isObject {
			out = append(append(out, k.Raw...), ':')
		}
		if raw != nil {
			out = append(out, raw...)
		} else {
			out = append(out, x.Raw...)
		}
		i++
		return true
	})
	for _, m := range extra {
		out = append(comma(out, open), m...)
	}
	return append(out, end)
}

// comma separates a member from the one before it, if any.
func comma(out []byte, open byte) []byte {
	if out[len(out)-1] == open {
		return out
	}
	return append(out, ',')
}
