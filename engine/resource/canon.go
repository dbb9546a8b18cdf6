package resource

import (
	"bytes"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// sameJSON reports whether a and b are the same JSON value, key order and
// whitespace aside, once the top-level fields in ignore are removed.
func sameJSON(a, b []byte, ignore ...string) bool {
	return bytes.Equal(canonical(a, ignore), canonical(b, ignore))
}

// canonical renders obj with sorted keys and no whitespace.
func canonical(obj []byte, ignore []string) []byte {
	for _, f := range ignore {
		if out, err := sjson.DeleteBytes(obj, f); err == nil {
			obj = out
		}
	}
	return []byte(gjson.GetBytes(obj, `@pretty:{"sortKeys":true}|@ugly`).Raw)
}
