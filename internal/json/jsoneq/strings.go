package jsoneq

import (
	"encoding/json"
	"strings"
)

// sameString compares two strings (quoted, as written) by the text they
// decode to. Only escapes make different spellings of one text, and only
// then is anything decoded.
func sameString(a, b string) bool {
	if strings.IndexByte(a, '\\') < 0 && strings.IndexByte(b, '\\') < 0 {
		return a == b
	}
	return unquote(a) == unquote(b)
}

// unquote returns the text of the string s (quoted, as written). It
// returns a broken string as it is, which no well-formed one decodes to.
func unquote(s string) string {
	if len(s) < 2 || s[len(s)-1] != '"' {
		return s
	}
	if strings.IndexByte(s, '\\') < 0 {
		return s[1 : len(s)-1]
	}
	var text string
	if err := json.Unmarshal([]byte(s), &text); err != nil {
		return s
	}
	return text
}
