package jsoneq

import (
	"cmp"
	"slices"
)

// object compares two objects, leaving out the members named in ignore.
// It walks both in step while their members come in the same order, as
// they do when both documents went through the same code; at the first
// pair of names that differ it compares the rest as sets.
func (c *comparer) object(a, b string, ignore []string) bool {
	ma, mb := members{s: a, i: 1}, members{s: b, i: 1}
	for {
		restA, restB := ma, mb
		nameA, x, okA := ma.nextKept(ignore)
		nameB, y, okB := mb.nextKept(ignore)
		switch {
		case !okA && !okB:
			return !ma.bad && !mb.bad
		case !okA || !okB || !sameString(nameA, nameB):
			return c.unordered(&restA, &restB, ignore)
		case !c.value(x, y):
			return c.atMember(unquote(nameA))
		}
	}
}

// member is one member of an object, its name decoded.
type member struct{ name, value string }

// unordered compares the remaining members of two objects as sets, by
// sorting both by name and walking them in step.
func (c *comparer) unordered(ma, mb *members, ignore []string) bool {
	var bufA, bufB [16]member // on the stack: most objects are small
	xs, ys := ma.rest(bufA[:0], ignore), mb.rest(bufB[:0], ignore)
	if ma.bad || mb.bad {
		return c.differ(ma.s, mb.s)
	}
	slices.SortStableFunc(xs, byName) // stable: a repeated name keeps its values' order
	slices.SortStableFunc(ys, byName)
	for len(xs) > 0 || len(ys) > 0 {
		var x, y member // an empty value stands for a missing member
		switch {
		case len(ys) == 0 || len(xs) > 0 && xs[0].name < ys[0].name:
			x, xs = xs[0], xs[1:]
		case len(xs) == 0 || ys[0].name < xs[0].name:
			y, ys = ys[0], ys[1:]
		default:
			x, xs, y, ys = xs[0], xs[1:], ys[0], ys[1:]
		}
		if x.value == "" || y.value == "" || !c.value(x.value, y.value) {
			c.differ(x.value, y.value)
			return c.atMember(cmp.Or(x.name, y.name))
		}
	}
	return true
}

func byName(x, y member) int { return cmp.Compare(x.name, y.name) }

// rest appends the members m has left, but those named in ignore, to buf.
func (m *members) rest(buf []member, ignore []string) []member {
	for {
		name, value, ok := m.nextKept(ignore)
		if !ok {
			return buf
		}
		buf = append(buf, member{unquote(name), value})
	}
}
