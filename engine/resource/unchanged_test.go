package resource

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/schema"
)

// checkSameness fails when the one comparison of the compare stage answers
// a question otherwise than the comparison each reader ran before it: the
// store's of the whole object, the managedFields stage's of what they
// record, the generation stage's of what bumps it.
func checkSameness(t *testing.T, obj, old []byte) {
	t.Helper()
	s := compareObjects(obj, old)
	checks := []struct {
		question  string
		got, want bool
	}{
		{"all", s.all(), sameJSON(obj, old)},
		{"recorded", s.recorded(), sameJSON(obj, old, "metadata") &&
			sameJSON(MetadataOf(obj), MetadataOf(old), "resourceVersion", "generation")},
		{"spec", s.spec(false), sameJSON(obj, old, "metadata")},
		{"spec, status its own", s.spec(true), sameJSON(obj, old, "metadata", "status")},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s → %s: %s = %v, the comparison says %v", old, obj, c.question, c.got, c.want)
		}
	}
}

var samenessSeeds = [][2]string{
	{`{"metadata":{"name":"a","resourceVersion":"5","generation":1},"spec":{"x":1}}`, `{"metadata":{"name":"a","resourceVersion":"5","generation":1},"spec":{"x":1}}`},
	{`{"metadata":{"name":"a","resourceVersion":"5"},"spec":{"x":1}}`, `{"spec":{"x":1},"metadata":{"resourceVersion":"05","name":"a"}}`},
	{`{"metadata":{"name":"a","generation":1}}`, `{"metadata":{"name":"a","generation":2}}`},
	{`{"metadata":{"name":"a","labels":{"x":"y"}}}`, `{"metadata":{"name":"a"}}`},
	{`{"metadata":{"name":"a"},"spec":{"x":1}}`, `{"metadata":{"name":"a"},"spec":{"x":1.0}}`},
	{`{"metadata":{"name":"a"},"status":{"p":"x"}}`, `{"metadata":{"name":"a"},"status":{"p":"y"}}`},
	{`{"metadata":{"name":"a"},"status":{"p":"x"}}`, `{"metadata":{"name":"a"}}`},
	{`{"metadata":{"name":"a"},"status":null}`, `{"metadata":{"name":"a"}}`},
	{`{"metadata":{"name":"a"},"spec":{"s":"é"}}`, `{"metadata":{"name":"a"},"spec":{"s":"\u00e9"}}`},
	{`{"metadata":{"name":"a"},"st\u0061tus":{"p":1}}`, `{"metadata":{"name":"a","gener\u0061tion":3},"status":{"p":2}}`},
	{`{"metadata":{"name":"a"},"kind":"A"}`, `{"metadata":{"name":"a"},"kind":"B","status":{}}`},
}

// TestSameness: the compare stage's one comparison answers each reader
// as the comparison it ran before.
func TestSameness(t *testing.T) {
	for _, seed := range samenessSeeds {
		checkSameness(t, []byte(seed[1]), []byte(seed[0]))
		checkSameness(t, []byte(seed[0]), []byte(seed[1]))
	}
}

// FuzzSameness is TestSameness for any two objects with metadata and no
// duplicate keys, as an update's are when the compare stage runs.
func FuzzSameness(f *testing.F) {
	for _, seed := range samenessSeeds {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, old, obj []byte) {
		for _, doc := range [][]byte{old, obj} {
			if !gjson.ValidBytes(doc) || !gjson.GetBytes(doc, "metadata").IsObject() {
				return
			}
			if _, dups := schema.DropDuplicates(doc); len(dups) > 0 {
				return
			}
		}
		checkSameness(t, obj, old)
	})
}
