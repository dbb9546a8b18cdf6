package jsoneq

// comparer walks two documents side by side. Each method takes two
// values' text, with no surrounding whitespace, and reports whether they
// are equal; when a diff is being recorded, the first difference found is
// noted and each level adds its place on the way out.
type comparer struct {
	numbersAsWritten bool
	diff             *difference // nil unless Diff asked where they differ
}

// top compares two whole documents, leaving out the members in ignore when
// both are objects.
func (c *comparer) top(a, b string, ignore []string) bool {
	a, b = trimSpace(a), trimSpace(b)
	if len(ignore) > 0 && isObject(a) && isObject(b) {
		return a == b || c.object(a, b, ignore)
	}
	return c.value(a, b)
}

// value compares two values of any type.
func (c *comparer) value(a, b string) bool {
	if a == b { // the common case, and cheap: the same text is the same value
		return true
	}
	if a == "" || b == "" || kindOf(a[0]) != kindOf(b[0]) {
		return c.differ(a, b)
	}
	switch kindOf(a[0]) {
	case kindObject:
		return c.object(a, b, nil)
	case kindArray:
		return c.array(a, b)
	case kindString:
		return sameString(a, b) || c.differ(a, b)
	case kindNumber:
		return !c.numbersAsWritten && sameNumber(a, b) || c.differ(a, b)
	}
	return c.differ(a, b) // true, false and null equal only their own text
}

// array compares two arrays item by item.
func (c *comparer) array(a, b string) bool {
	ia, ib := items{s: a, i: 1}, items{s: b, i: 1}
	for n := 0; ; n++ {
		x, okA := ia.next()
		y, okB := ib.next()
		if !okA || !okB {
			if okA == okB { // both ended
				return ia.valid() && ib.valid()
			}
			c.differ(x, y) // the one that ended shows as missing
			return c.atIndex(n)
		}
		if !c.value(x, y) {
			return c.atIndex(n)
		}
	}
}

// differ notes that a and b differ (when recording) and returns false.
func (c *comparer) differ(a, b string) bool {
	if c.diff != nil {
		c.diff.found(a, b)
	}
	return false
}

// atIndex adds array item n to the place of the difference and returns false.
func (c *comparer) atIndex(n int) bool {
	if c.diff != nil {
		c.diff.index(n)
	}
	return false
}

// atMember adds object member name to the place of the difference and
// returns false.
func (c *comparer) atMember(name string) bool {
	if c.diff != nil {
		c.diff.member(name)
	}
	return false
}

// kind is the type of a JSON value, told by its first byte.
type kind uint8

const (
	kindOther kind = iota // true, false, null, or not JSON
	kindObject
	kindArray
	kindString
	kindNumber
)

func kindOf(first byte) kind {
	switch {
	case first == '{':
		return kindObject
	case first == '[':
		return kindArray
	case first == '"':
		return kindString
	case first == '-' || '0' <= first && first <= '9':
		return kindNumber
	}
	return kindOther
}

func isObject(s string) bool { return s != "" && s[0] == '{' }
