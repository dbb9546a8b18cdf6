package convert

import (
	"errors"
	"strings"
)

// path is a parsed field path. The zero path (no keys) is the document
// itself: an element of a list, inside forEach.
type path struct {
	keys   []string // unescaped keys
	quoted []string // the keys as JSON strings
	text   string   // as written, for messages
}

// parsePath reads a dotted path; a backslash makes the next character part
// of the key, so a key may hold dots.
func parsePath(s string) (path, error) {
	if s == "" {
		return path{}, errors.New("must not be empty")
	}
	var keys []string
	var key strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			key.WriteByte(s[i])
		case c == '\\':
			return path{}, errors.New("ends with a lone backslash")
		case c == '.':
			keys = append(keys, key.String())
			key.Reset()
		default:
			key.WriteByte(c)
		}
	}
	keys = append(keys, key.String())
	for _, k := range keys {
		if k == "" {
			return path{}, errors.New("has an empty key (two dots in a row, or a dot at an end)")
		}
	}
	return newPath(keys), nil
}

// newPath builds a path from unescaped keys.
func newPath(keys []string) path {
	p := path{keys: keys, quoted: make([]string, len(keys))}
	text := make([]string, len(keys))
	for i, k := range keys {
		p.quoted[i] = jsonString(k)
		text[i] = strings.ReplaceAll(strings.ReplaceAll(k, `\`, `\\`), ".", `\.`)
	}
	p.text = strings.Join(text, ".")
	return p
}

// isRoot reports whether p is the document itself.
func (p path) isRoot() bool { return len(p.keys) == 0 }

// String renders the path as it is written in a rules file.
func (p path) String() string { return p.text }

// overlaps reports whether one path is the other or inside it.
func (p path) overlaps(q path) bool {
	return hasPrefix(p.keys, q.keys) || hasPrefix(q.keys, p.keys)
}

// hasPrefix reports whether keys starts with prefix.
func hasPrefix(keys, prefix []string) bool {
	if len(prefix) > len(keys) {
		return false
	}
	for i, k := range prefix {
		if keys[i] != k {
			return false
		}
	}
	return true
}
