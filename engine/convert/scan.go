package convert

import (
	"encoding/json"

	"github.com/dynapi/dynapi/engine/internal/jsonscan"
)

// eachMember calls fn with the key (as JSON text) and value text of every
// member of obj, a JSON object's text, in order. Why not gjson's ForEach:
// it parses every number and unescapes every string it passes, and
// expanding an object needs neither, only where each value starts and ends.
// obj should be valid JSON, as every object is checked at the edge; text
// that is not gives members that make no sense, but no panic.
func eachMember(obj string, fn func(kraw, raw string)) {
	i := jsonscan.SkipSpace(obj, 1) // past '{'
	for i < len(obj) && obj[i] == '"' {
		kend := jsonscan.SkipString(obj, i)
		colon := jsonscan.SkipSpace(obj, kend)
		if colon >= len(obj) {
			return
		}
		v := jsonscan.SkipSpace(obj, colon+1)
		vend := jsonscan.SkipValue(obj, v)
		fn(obj[i:kend], obj[v:vend])
		i = jsonscan.SkipSpace(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = jsonscan.SkipSpace(obj, i+1)
		}
	}
}

// eachItem calls fn with the text of every item of list, a JSON list's
// text, in order.
func eachItem(list string, fn func(raw string)) {
	i := jsonscan.SkipSpace(list, 1) // past '['
	for i < len(list) && list[i] != ']' {
		end := jsonscan.SkipValue(list, i)
		if end == i {
			return // not JSON: stop rather than loop
		}
		fn(list[i:end])
		i = jsonscan.SkipSpace(list, end)
		if i < len(list) && list[i] == ',' {
			i = jsonscan.SkipSpace(list, i+1)
		}
	}
}

// unquote returns a key's text without its quotes and escapes.
func unquote(kraw string) string {
	for i := 1; i < len(kraw)-1; i++ {
		if kraw[i] == '\\' {
			var s string
			if json.Unmarshal([]byte(kraw), &s) == nil {
				return s
			}
			return kraw
		}
	}
	return kraw[1 : len(kraw)-1]
}
