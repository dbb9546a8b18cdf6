// Package jsoneq holds dynapi's one comparison of JSON documents, for
// production code and tests alike.
//
// Two documents are equal when they hold the same value:
//
//   - whitespace and the order of an object's members do not matter;
//     the order of an array's items does;
//   - strings are equal when they decode to the same text ("\u0041" is "A");
//   - numbers are equal when they denote the same decimal value, computed
//     exactly: 1, 1.0, 1e0, 10e-1 and 0.1e1 are equal, -0 is 0, but 1 and
//     1.0000000000000001 are not (though both read as the same float64);
//   - true, false and null are equal only to themselves, and a value of
//     one type never equals a value of another ("1" is not 1).
//
// dynapi's objects name each member once (schema.DropDuplicates sees to
// that); where a name is repeated, two objects are equal when each name
// has the same values in the same order. For text that is not JSON the
// answer is unspecified, but the functions never panic.
//
// The comparison allocates nothing, unless a string or member name has
// escapes, the members of an object of more than 16 come in another
// order, or an exponent has more than 18 digits.
package jsoneq

import "github.com/dynapi/dynapi/internal/json/jsonscan"

// Equal reports whether a and b are the same JSON value, in the meaning
// the package documents.
func Equal(a, b []byte) bool {
	return Options{}.Equal(a, b)
}

// Options asks for a comparison that differs from Equal's.
type Options struct {
	// Ignore names members of the top-level object left out of the
	// comparison (when both documents are objects).
	Ignore []string
	// NumbersAsWritten makes numbers equal only when they are spelled
	// alike: 1.0 is then not 1. Storage keeps a number as written (jsonb
	// keeps its scale), so a caller that asks "would a reader see a
	// difference" needs this rather than value equality.
	NumbersAsWritten bool
}

// Equal reports whether a and b are the same JSON value under o.
func (o Options) Equal(a, b []byte) bool {
	return o.EqualText(jsonscan.View(a), jsonscan.View(b)) // read only
}

// EqualText is Equal for documents held as strings, such as gjson's Raw.
func EqualText(a, b string) bool {
	return Options{}.EqualText(a, b)
}

// EqualText is Options.Equal for documents held as strings.
func (o Options) EqualText(a, b string) bool {
	c := comparer{numbersAsWritten: o.NumbersAsWritten}
	return c.top(a, b, o.Ignore)
}
