package jsonguard

import (
	"bytes"
	"unicode/utf8"
)

// replacement is U+FFFD as JSON escapes it.
const replacement = `\ufffd`

// Normalize returns body with each byte that is not part of a UTF-8
// sequence, and each \u escape of a lone UTF-16 surrogate, replaced by
// U+FFFD, as encoding/json (and kube-apiserver, which decodes with it)
// reads them. body must be valid JSON. A body that needs no change is
// returned as it is.
func Normalize(body []byte) []byte {
	if utf8.Valid(body) && !hasSurrogateEscape(body) {
		return body
	}
	out := make([]byte, 0, len(body)+16)
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			n := escapeLen(body[i:])
			if n < 0 {
				out = append(out, replacement...)
				i += 6
				continue
			}
			out = append(out, body[i:i+n]...)
			i += n
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, replacement...)
			} else {
				out = append(out, body[i:i+size]...)
			}
			i += size
		}
	}
	return out
}

// hasSurrogateEscape reports whether body may hold a \u escape of a
// surrogate: \ud800 to \udfff.
func hasSurrogateEscape(body []byte) bool {
	for {
		i := bytes.Index(body, []byte(`\u`))
		if i < 0 || i+2 >= len(body) {
			return false
		}
		if d := body[i+2]; d == 'd' || d == 'D' {
			return true
		}
		body = body[i+2:]
	}
}

// escapeLen is the length of the escape sequence at the start of s (which
// begins with a backslash), or -1 for the \u escape of a lone surrogate,
// which stands for U+FFFD.
func escapeLen(s []byte) int {
	if len(s) < 6 || s[1] != 'u' {
		return min(2, len(s))
	}
	r := hex4(s[2:6])
	switch {
	case r >= 0xdc00 && r <= 0xdfff:
		return -1 // a low surrogate with no high one before it
	case r >= 0xd800 && r <= 0xdbff:
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if lo := hex4(s[8:12]); lo >= 0xdc00 && lo <= 0xdfff {
				return 12
			}
		}
		return -1
	}
	return 6
}

// hex4 decodes four hex digits, or returns -1.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
