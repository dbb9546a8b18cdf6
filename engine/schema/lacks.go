package schema

import (
	"strings"
	"unsafe"
)

// Most objects read from storage have every default already. lacks tells
// so in one pass over the bytes, without building gjson results: a walk
// with ForEach scans each nested object twice (once to find its end, once
// inside), which made the check of a 1.5 KB object cost 1.3–2.8 µs.

// lacksDefaults reports whether DefaultStored would change obj: a
// property with a default is missing, or a non-nullable null has a
// default. obj must be valid JSON.
func (s *Schema) lacksDefaults(obj []byte) bool {
	text := unsafe.String(unsafe.SliceData(obj), len(obj))
	_, lacks := s.root.lacks(text, skipSpace(text, 0), false)
	return lacks
}

// lacks checks the value at text[i] against n, and returns where it ends
// (when needEnd) and whether it lacks a default.
func (n *node) lacks(text string, i int, needEnd bool) (int, bool) {
	switch {
	case i >= len(text) || !n.defaults:
		return skipValue(text, i), false
	case text[i] == '{':
		return n.objectLacks(text, i+1, needEnd)
	case text[i] == '[':
		return n.items.arrayLacks(text, i+1)
	}
	return skipValue(text, i), false
}

// objectLacks checks the members of an object from text[i], just past its '{'.
func (n *node) objectLacks(text string, i int, needEnd bool) (int, bool) {
	seen, visited := 0, 0
	for i = skipSpace(text, i); i < len(text) && text[i] != '}'; i = skipSpace(text, i) {
		if text[i] == ',' {
			i = skipSpace(text, i+1)
		}
		keyEnd := stringEnd(text, i)
		key := text[i+1 : keyEnd-1]
		if strings.IndexByte(key, '\\') >= 0 {
			return len(text), true // an escaped key: let the full walk decide
		}
		c := n.child(key)
		i = skipSpace(text, skipSpace(text, keyEnd)+1) // past the ':'
		if c == nil {
			i = skipValue(text, i)
			continue
		}
		if c.slot > 0 {
			seen++
		}
		if c.def != nil && !c.nullable && strings.HasPrefix(text[i:], "null") {
			return len(text), true
		}
		var lacks bool
		if i, lacks = c.lacks(text, i, true); lacks {
			return len(text), true
		}
		if c.def != nil || c.defaults {
			visited++
		}
		if visited == n.needed { // nothing after can lack a default
			if !needEnd {
				return len(text), false
			}
			return skipNested(text, i), false
		}
	}
	return i + 1, seen < len(n.defaulted)
}

// arrayLacks checks the items of an array from text[i], just past its '['.
func (items *node) arrayLacks(text string, i int) (int, bool) {
	for i = skipSpace(text, i); i < len(text) && text[i] != ']'; i = skipSpace(text, i) {
		if text[i] == ',' {
			i = skipSpace(text, i+1)
		}
		if items != nil && items.def != nil && !items.nullable && strings.HasPrefix(text[i:], "null") {
			return len(text), true
		}
		if items == nil {
			i = skipValue(text, i)
			continue
		}
		var lacks bool
		if i, lacks = items.lacks(text, i, true); lacks {
			return len(text), true
		}
	}
	return i + 1, false
}

// skipValue returns the index just past the JSON value at text[i].
func skipValue(text string, i int) int {
	if i >= len(text) {
		return i
	}
	switch text[i] {
	case '"':
		return stringEnd(text, i)
	case '{', '[':
		return skipNested(text, i+1)
	}
	for i < len(text) && !strings.ContainsRune(",}] \t\r\n", rune(text[i])) {
		i++
	}
	return i
}

// skipNested returns the index just past the object or array whose
// opening bracket is just before text[i].
func skipNested(text string, i int) int {
	for depth := 1; i < len(text); i++ {
		switch text[i] {
		case '"':
			i = stringEnd(text, i) - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return i
}

// stringEnd returns the index just past the string that starts at
// text[i]. Short strings (most keys) are read byte by byte; longer ones
// jump from quote to quote (IndexByte is vectorized, but a call costs
// more than a few bytes). A quote ends the string unless an odd number of
// backslashes escapes it.
func stringEnd(text string, i int) int {
	for j := i + 1; j < len(text) && j <= i+16; j++ {
		if text[j] == '\\' {
			break
		}
		if text[j] == '"' {
			return j + 1
		}
	}
	for j := i + 1; ; {
		k := strings.IndexByte(text[j:], '"')
		if k < 0 {
			return len(text)
		}
		q := j + k
		escapes := 0
		for p := q - 1; p > i && text[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

func skipSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r') {
		i++
	}
	return i
}
