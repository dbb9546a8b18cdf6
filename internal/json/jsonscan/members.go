package jsonscan

import (
	"encoding/json"
	"unsafe"
)

// EachMember calls fn with the key (as JSON text) and value text of every
// member of obj, a JSON object's text, in order. Why not gjson's ForEach:
// it parses every number and unescapes every string it passes, and a walk
// that copies or skips values needs neither, only where each value starts
// and ends.
// obj should be valid JSON, as every object is checked at the edge; text
// that is not gives members that make no sense, but no panic.
func EachMember(obj string, fn func(kraw, raw string)) {
	i := SkipSpace(obj, 1) // past '{'
	for i < len(obj) && obj[i] == '"' {
		kend := SkipString(obj, i)
		colon := SkipSpace(obj, kend)
		if colon >= len(obj) {
			return
		}
		v := SkipSpace(obj, colon+1)
		vend := SkipValue(obj, v)
		fn(obj[i:kend], obj[v:vend])
		i = SkipSpace(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = SkipSpace(obj, i+1)
		}
	}
}

// EachItem calls fn with the text of every item of list, a JSON list's
// text, in order.
func EachItem(list string, fn func(raw string)) {
	i := SkipSpace(list, 1) // past '['
	for i < len(list) && list[i] != ']' {
		end := SkipValue(list, i)
		if end == i {
			return // not JSON: stop rather than loop
		}
		fn(list[i:end])
		i = SkipSpace(list, end)
		if i < len(list) && list[i] == ',' {
			i = SkipSpace(list, i+1)
		}
	}
}

// Unquote returns a key's text without its quotes and escapes.
func Unquote(kraw string) string {
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

// View returns b's text as a string without copying it, for walks that
// only read it and keep nothing of it past b's life.
func View(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// AppendQuoted appends s as a JSON string, escaped as encoding/json
// escapes it. Most names and values are printable ASCII that needs no
// escape, and are quoted without encoding/json.
func AppendQuoted(b []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			out, _ := json.Marshal(s) // a string always encodes
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
