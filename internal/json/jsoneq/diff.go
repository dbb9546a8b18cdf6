package jsoneq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// Diff describes the first place where a and b differ, as
// `.spec.items[2].size: 3 vs 4` (a missing member or item shows as
// "(none)"), or returns "" when they are Equal.
func Diff(a, b []byte) string {
	var d difference
	c := comparer{diff: &d}
	if c.top(jsonscan.View(a), jsonscan.View(b), nil) {
		return ""
	}
	return d.String()
}

// TB is the part of testing.TB that Assert uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// Assert reports whether got and want are Equal JSON. When they are not,
// or either is not JSON at all, it marks tb failed with where they differ
// and both documents; tests that cannot go on call tb.FailNow after it.
func Assert[G, W ~[]byte | ~string](tb TB, got G, want W) bool {
	tb.Helper()
	g, w := []byte(got), []byte(want)
	switch {
	case !json.Valid(g):
		tb.Errorf("got is not JSON:\n%s", g)
	case !json.Valid(w):
		tb.Errorf("want is not JSON:\n%s", w)
	case !Equal(g, w):
		tb.Errorf("JSON differs at %s\n got: %s\nwant: %s", Diff(g, w), indent(g), indent(w))
	default:
		return true
	}
	return false
}

func indent(b []byte) []byte {
	var out bytes.Buffer
	if json.Indent(&out, b, "      ", "  ") != nil {
		return b
	}
	return out.Bytes()
}

// difference records where a comparison first found two values apart.
type difference struct {
	a, b   string
	set    bool
	places []string // innermost first
}

// found notes the two values that differ, unless a deeper pair was noted.
func (d *difference) found(a, b string) {
	if !d.set {
		d.a, d.b, d.set = a, b, true
	}
}

func (d *difference) index(n int) { d.places = append(d.places, "["+strconv.Itoa(n)+"]") }

func (d *difference) member(name string) {
	if name != "" && strings.IndexFunc(name, notPlain) < 0 {
		d.places = append(d.places, "."+name)
		return
	}
	d.places = append(d.places, "["+strconv.Quote(name)+"]")
}

// notPlain reports whether r may not appear in a member name written
// after a dot in a place.
func notPlain(r rune) bool {
	return !(r == '_' || r == '-' || r == '/' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
}

func (d *difference) String() string {
	place := slices.Clone(d.places)
	slices.Reverse(place)
	where := strings.Join(place, "")
	if where == "" {
		where = "the top"
	}
	return fmt.Sprintf("%s: %s vs %s", where, shown(d.a), shown(d.b))
}

// shown renders a value of a difference, shortened when long.
func shown(v string) string {
	const most = 80
	switch {
	case v == "":
		return "(none)"
	case len(v) > most:
		return v[:most] + "…"
	}
	return v
}
