package convert

import (
	"encoding/json"
	"fmt"
)

// args are the fields of one rule being decoded. Each accessor reports what
// is wrong with its field and returns a zero value, so that a rule's
// problems are all reported at once.
type args struct {
	name   string
	where  string
	nested bool // inside forEach, where the path "" is the item itself
	m      map[string]json.RawMessage
	ps     *Problems
}

func (a *args) failf(format string, v ...any) {
	a.ps.add(a.where, a.name+": "+fmt.Sprintf(format, v...))
}

// text reads a string field.
func (a *args) text(field string, required bool) string {
	raw, ok := a.m[field]
	if !ok {
		if required {
			a.failf("%s is required", field)
		}
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		a.failf("%s: must be a string", field)
		return ""
	}
	if s == "" && required {
		a.failf("%s: must not be empty", field)
	}
	return s
}

// path reads a path field. item allows "", the list item itself, for the
// in-place rules inside forEach.
func (a *args) path(field string, item bool) path {
	if raw, ok := a.m[field]; ok && item && a.nested && string(raw) == `""` {
		return path{}
	}
	s := a.text(field, true)
	if s == "" {
		return path{}
	}
	p, err := parsePath(s)
	if err != nil {
		a.failf("%s %q: %v", field, s, err)
	}
	return p
}

// fromTo reads the from and to paths of a rule that moves a value. distinct
// refuses one path inside the other, which only a typo would write.
func (a *args) fromTo(distinct bool) (path, path) {
	from, to := a.path("from", false), a.path("to", false)
	if distinct && !from.isRoot() && !to.isRoot() && from.overlaps(to) {
		a.failf("from %q and to %q: one is inside the other", from.text, to.text)
	}
	return from, to
}
