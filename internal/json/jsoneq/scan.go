package jsoneq

import "strings"

// items walks the items of the array s, which starts with '['.
type items struct {
	s   string
	i   int  // where the next item, ',' or ']' is
	bad bool // s turned out not to be an array
}

// next returns the next item, or false at the end of the array.
func (it *items) next() (string, bool) {
	i := separator(it.s, it.i, ']')
	if i < 0 {
		it.bad = i == -2
		return "", false
	}
	end := valueEnd(it.s, i)
	if end < 0 {
		it.bad = true
		return "", false
	}
	it.i = end
	return it.s[i:end], true
}

// valid reports whether the array ended well.
func (it *items) valid() bool { return !it.bad }

// members walks the members of the object s, which starts with '{'.
type members struct {
	s   string
	i   int  // where the next member, ',' or '}' is
	bad bool // s turned out not to be an object
}

// next returns the next member's name (as written, quotes included) and
// value, or false at the end of the object.
func (m *members) next() (name, value string, ok bool) {
	i := separator(m.s, m.i, '}')
	if i < 0 {
		m.bad = i == -2
		return "", "", false
	}
	nameEnd := -1
	if m.s[i] == '"' {
		nameEnd = stringEnd(m.s, i)
	}
	if nameEnd < 0 {
		m.bad = true
		return "", "", false
	}
	colon := skipSpace(m.s, nameEnd)
	if colon >= len(m.s) || m.s[colon] != ':' {
		m.bad = true
		return "", "", false
	}
	v := skipSpace(m.s, colon+1)
	end := valueEnd(m.s, v)
	if end < 0 {
		m.bad = true
		return "", "", false
	}
	m.i = end
	return m.s[i:nameEnd], m.s[v:end], true
}

// nextKept is next, skipping the members named in ignore.
func (m *members) nextKept(ignore []string) (name, value string, ok bool) {
	for {
		name, value, ok = m.next()
		if !ok || len(ignore) == 0 || !ignored(name, ignore) {
			return name, value, ok
		}
	}
}

// ignored reports whether the member name (quoted) is one of ignore.
func ignored(name string, ignore []string) bool {
	name = unquote(name)
	for _, n := range ignore {
		if name == n {
			return true
		}
	}
	return false
}

// separator skips what comes before a container's next element, starting
// at i (just after the opening bracket or the previous element): the
// comma and whitespace. It returns where the element starts, -1 when the
// container ends there with close, and -2 when s is not well formed.
func separator(s string, i int, close byte) int {
	i = skipSpace(s, i)
	if i >= len(s) {
		return -2
	}
	if s[i] == close {
		return -1
	}
	if s[i] == ',' {
		i = skipSpace(s, i+1)
	}
	if i >= len(s) || s[i] == close {
		return -2
	}
	return i
}

// valueEnd returns the index just past the value that starts at s[i], or
// -1 when there is none.
func valueEnd(s string, i int) int {
	if i < 0 || i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		return containerEnd(s, i)
	}
	end := i
	for end < len(s) && !endsScalar(s[end]) {
		end++
	}
	if end == i {
		return -1
	}
	return end
}

// endsScalar reports whether c ends a number, true, false or null.
func endsScalar(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r', '"', '{', '[':
		return true
	}
	return false
}

// stringEnd returns the index just past the string that starts at s[i]
// (a '"'), or -1 when it is not closed.
func stringEnd(s string, i int) int {
	for j := i + 1; j <= len(s); j++ {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		if backslashesBefore(s, j, i)%2 == 0 {
			return j + 1
		}
	}
	return -1
}

// backslashesBefore counts the backslashes just before s[j], after s[from].
func backslashesBefore(s string, j, from int) int {
	n := 0
	for j--; j > from && s[j] == '\\'; j-- {
		n++
	}
	return n
}

// containerEnd returns the index just past the object or array that
// starts at s[i], or -1 when it is not closed.
func containerEnd(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			end := stringEnd(s, i)
			if end < 0 {
				return -1
			}
			i = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func trimSpace(s string) string {
	s = s[skipSpace(s, 0):]
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }
