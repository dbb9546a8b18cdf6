package schema

import (
	"math/big"

	"github.com/tidwall/gjson"
)

// unchanged reports whether ratcheting tolerates a problem of the value at
// instance location ptr: that value is the same in old as in obj. List items
// are not matched between the two (a list may be reordered), so inside a
// list the whole list must be the same.
func (c *causes) unchanged(ptr string) bool {
	if !c.old.Exists() {
		return false
	}
	cur, old := c.obj, c.old
	for _, t := range pointerTokens(ptr) {
		if cur.IsArray() {
			break
		}
		cur, old = cur.Get(gjson.Escape(t)), old.Get(gjson.Escape(t))
	}
	return cur.Exists() && old.Exists() && sameValue(cur, old)
}

// sameValue reports whether two JSON values are equal: objects whatever
// their key order, numbers whatever their spelling (1.0 and 1).
func sameValue(a, b gjson.Result) bool {
	switch {
	case a.Type != b.Type:
		return false
	case a.Type == gjson.Number:
		return sameNumber(a.Raw, b.Raw)
	case a.IsArray() != b.IsArray():
		return false
	case a.IsArray():
		return sameItems(a.Array(), b.Array())
	case a.IsObject():
		return sameMembers(a.Map(), b.Map())
	}
	return a.Str == b.Str // strings; true, false and null have their Type only
}

func sameNumber(a, b string) bool {
	x, okX := new(big.Rat).SetString(a)
	y, okY := new(big.Rat).SetString(b)
	return okX && okY && x.Cmp(y) == 0
}

func sameItems(a, b []gjson.Result) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameValue(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameMembers(a, b map[string]gjson.Result) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !sameValue(v, w) {
			return false
		}
	}
	return true
}
