package table

import (
	"github.com/tidwall/gjson"
)

// walk follows single-valued steps from v and returns the value they reach,
// which does not exist when a key is missing or a null is in the way. When
// client-go would fail (an index of a non-array, or out of range) it returns
// the value given to the failing step, with errJSONPath.
func walk(v gjson.Result, steps []step) (gjson.Result, error) {
	for i := range steps {
		if !v.Exists() {
			return v, nil
		}
		s := &steps[i]
		if s.kind == stepField {
			v = lookupKey(v, s.key, s.gkey)
			continue
		}
		item, err := index(v, s.slice[0].value)
		if err != nil {
			return v, err
		}
		v = item
	}
	return v, nil
}

// lookupKey looks a key up in an object; anything else has no keys.
func lookupKey(v gjson.Result, key, gkey string) gjson.Result {
	if key == "" {
		// gjson cannot address the empty key.
		var out [1]gjson.Result
		findKeys(v, []string{""}, out[:])
		return out[0]
	}
	if !v.IsObject() {
		return gjson.Result{}
	}
	return v.Get(gkey)
}

// findKeys sets out[i] to the value of keys[i] in object v, in one pass over
// it. Like gjson's Get, the first of duplicate keys wins.
func findKeys(v gjson.Result, keys []string, out []gjson.Result) {
	if !v.IsObject() {
		return
	}
	left := len(keys)
	v.ForEach(func(k, val gjson.Result) bool {
		for i, key := range keys {
			if k.Str == key && !out[i].Exists() {
				out[i] = val
				left--
			}
		}
		return left > 0
	})
}

// index returns item i of an array, counting from the end when negative.
// A null has no items; anything else that is not an array, and an index out
// of range, are client-go errors.
func index(v gjson.Result, i int) (gjson.Result, error) {
	if v.Type == gjson.Null {
		return gjson.Result{}, nil
	}
	if !v.IsArray() {
		return gjson.Result{}, errJSONPath
	}
	if i < 0 {
		i += arrayLen(v)
	}
	n := 0
	var out gjson.Result
	v.ForEach(func(_, item gjson.Result) bool {
		if n == i {
			out = item
			return false
		}
		n++
		return true
	})
	if !out.Exists() {
		return out, errJSONPath
	}
	return out, nil
}

func arrayLen(v gjson.Result) int {
	n := 0
	v.ForEach(func(_, _ gjson.Result) bool {
		n++
		return true
	})
	return n
}
