package convert

import "github.com/tidwall/gjson"

// equal reports whether two JSON values are the same value: objects with
// the same members in any order, numbers of the same value however
// written (1 and 1.0), everything else as written.
func equal(a, b gjson.Result) bool {
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case gjson.String:
		return a.Str == b.Str
	case gjson.Number:
		return a.Raw == b.Raw || a.Float() == b.Float()
	case gjson.JSON:
		if a.IsArray() != b.IsArray() {
			return false
		}
		if a.IsArray() {
			return equalArrays(a, b)
		}
		return equalObjects(a, b)
	}
	return true // null, true, false
}

func equalArrays(a, b gjson.Result) bool {
	x, y := a.Array(), b.Array()
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !equal(x[i], y[i]) {
			return false
		}
	}
	return true
}

func equalObjects(a, b gjson.Result) bool {
	bm := b.Map()
	n, same := 0, true
	a.ForEach(func(k, v gjson.Result) bool {
		n++
		w, ok := bm[k.Str]
		same = ok && equal(v, w)
		return same
	})
	return same && n == len(bm)
}

// equalRaw compares a value with JSON text.
func equalRaw(a gjson.Result, raw string) bool {
	return equal(a, gjson.Parse(raw))
}
