package resource

import (
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// sameJSON reports whether a and b are the same JSON value, key order and
// whitespace aside, once the top-level fields in ignore are removed.
//
// Numbers compare by their text as written ("1.0" is not "1"), not by
// value as jsoneq.Equal does: an update that changes nothing writes
// nothing, and storage keeps a number as written (jsonb keeps 1.0's
// scale), so 1 → 1.0 is a change a reader would see.
func sameJSON(a, b []byte, ignore ...string) bool {
	return jsoneq.Options{Ignore: ignore, NumbersAsWritten: true}.Equal(a, b)
}

// lookup is gjson.GetBytes without its copy of the value: the result's
// text shares obj's bytes, which stay as they are (a write replaces a body
// and never changes one in place). Index is the value's offset in obj.
func lookup(obj []byte, path string) gjson.Result {
	return gjson.Get(jsonscan.View(obj), path)
}
