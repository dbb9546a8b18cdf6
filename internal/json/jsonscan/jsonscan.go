// Package jsonscan finds where JSON values start and end in text known to
// be valid JSON, without decoding them: what walks that read an object's
// members but copy or skip their values need, and gjson's ForEach does
// more than (it parses every number and unescapes every string it passes,
// and a walk into a member scans it twice). Text that is not valid JSON
// gives positions that make no sense, but no panic.
package jsonscan

import "strings"

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i
}

// SkipString returns the index just past the string that starts at s[i],
// jumping from quote to quote (IndexByte is vectorized): most of a body's
// bytes are in strings. A quote ends the string unless an odd number of
// backslashes escapes it.
func SkipString(s string, i int) int {
	for j := i + 1; j < len(s); {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return len(s)
		}
		q := j + k
		escapes := 0
		for p := q - 1; p > i && s[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return len(s)
}

// SkipValue returns the index just past the value that starts at s[i].
func SkipValue(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return SkipString(s, i)
	case '{', '[':
		return Close(s, i+1)
	}
	for i < len(s) && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n' && s[i] != '\r' && s[i] != '\t' {
		i++
	}
	return i
}

// Close returns the index just past the bracket that closes the object or
// list whose content goes on at s[i] (anywhere after its opening bracket,
// outside its members' values).
func Close(s string, i int) int {
	for depth := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			i = SkipString(s, i) - 1
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
