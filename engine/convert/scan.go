package convert

import (
	"encoding/json"
	"strings"
)

// eachMember calls fn with the key (as JSON text) and value text of every
// member of obj, a JSON object's text, in order. Why not gjson's ForEach:
// it parses every number and unescapes every string it passes, and
// expanding an object needs neither, only where each value starts and ends.
// obj should be valid JSON, as every object is checked at the edge; text
// that is not gives members that make no sense, but no panic.
func eachMember(obj string, fn func(kraw, raw string)) {
	i := skipSpace(obj, 1) // past '{'
	for i < len(obj) && obj[i] == '"' {
		kend := skipString(obj, i)
		colon := skipSpace(obj, kend)
		if colon >= len(obj) {
			return
		}
		v := skipSpace(obj, colon+1)
		vend := skipValue(obj, v)
		fn(obj[i:kend], obj[v:vend])
		i = skipSpace(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

// eachItem calls fn with the text of every item of list, a JSON list's
// text, in order.
func eachItem(list string, fn func(raw string)) {
	i := skipSpace(list, 1) // past '['
	for i < len(list) && list[i] != ']' {
		end := skipValue(list, i)
		if end == i {
			return // not JSON: stop rather than loop
		}
		fn(list[i:end])
		i = skipSpace(list, end)
		if i < len(list) && list[i] == ',' {
			i = skipSpace(list, i+1)
		}
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at i.
func skipString(s string, i int) int {
	for i++; i < len(s); i++ {
		q := strings.IndexByte(s[i:], '"')
		if q < 0 {
			return len(s)
		}
		i += q
		// The quote ends the string unless an odd number of backslashes
		// escapes it.
		n := 0
		for j := i - 1; s[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return i + 1
		}
	}
	return len(s)
}

// skipValue returns the index just past the value that starts at i.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for ; i < len(s); i++ {
			switch s[i] {
			case '"':
				i = skipString(s, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(s)
	}
	for i < len(s) && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n' && s[i] != '\r' && s[i] != '\t' {
		i++
	}
	return i
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
