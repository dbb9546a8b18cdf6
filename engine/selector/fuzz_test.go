package selector

import "testing"

var fuzzObject = []byte(`{"metadata":{"name":"a","namespace":"b","labels":{"app":"web","tier":"x.y/z"}},"spec":{"color":"red"}}`)

// FuzzParseLabels: any label selector parses or is refused, and what
// parses matches an object without failing.
func FuzzParseLabels(f *testing.F) {
	for _, seed := range []string{"", "app=web", "app!=web,tier", "app in (a,b),!x", "a notin (b)", "x.y/z=1", "a=b;", "(", "a in (", "!"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		reqs, err := ParseLabels(s)
		if err != nil {
			return
		}
		MatchLabels(reqs, fuzzObject)
	})
}

// FuzzParseFields is FuzzParseLabels for field selectors.
func FuzzParseFields(f *testing.F) {
	for _, seed := range []string{"", "metadata.name=a", "metadata.name!=a,spec.color==red", "a", "=", "a=b=c", `a\,b=c`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		reqs, err := ParseFields(s)
		if err != nil {
			return
		}
		MatchFields(reqs, fuzzObject, func(field string) string { return field })
	})
}
