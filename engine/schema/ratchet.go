package schema

import (
	"github.com/dynapi/dynapi/internal/json/jsoneq"
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
	return cur.Exists() && old.Exists() && jsoneq.EqualText(cur.Raw, old.Raw)
}
