package schema

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestDropDuplicates(t *testing.T) {
	tests := []struct {
		name, in, want string
		found          []string
	}{
		{"none", `{"a":1,"b":{"c":[1,{"d":2}]}}`, `{"a":1,"b":{"c":[1,{"d":2}]}}`, nil},
		{"last wins", `{"spec":{"size":1,"color":"red","size":2}}`, `{"spec":{"color":"red","size":2}}`, []string{"spec.size"}},
		{"three times", `{"a":1,"a":2,"a":3}`, `{"a":3}`, []string{"a", "a"}},
		{"in metadata", `{"metadata":{"name":"a","labels":{"x":"1"},"name":"b"}}`, `{"metadata":{"labels":{"x":"1"},"name":"b"}}`, []string{"metadata.name"}},
		{"in arrays", `{"items":[{"k":1},{"k":1,"k":2}]}`, `{"items":[{"k":1},{"k":2}]}`, []string{"items[1].k"}},
		{"escaped keys are the same key", `{"a":1,"\u0061":2}`, `{"\u0061":2}`, []string{"a"}},
		{"whole subtrees dropped", `{"s":{"x":{"y":1,"y":2}},"s":{"z":3}}`, `{"s":{"z":3}}`, []string{"s"}},
		{"not an object", `[1,2]`, `[1,2]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := DropDuplicates([]byte(tt.in))
			if string(got) != tt.want || !slices.Equal(found, tt.found) {
				t.Errorf("DropDuplicates(%s) = %s, %q; want %s, %q", tt.in, got, found, tt.want, tt.found)
			}
		})
	}
}

func BenchmarkDropDuplicates(b *testing.B) {
	obj := []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default",` +
		`"labels":{"app":"web","tier":"front"}},"spec":{"color":"red","size":3,"tags":["a","b","c"],` +
		`"description":"a fairly long description of the widget to make the object larger than a few hundred bytes"}}`)
	for b.Loop() {
		DropDuplicates(obj)
	}
}

// TestMayRepeatKeysDecidesUsualBodies: the valid objects of the testdata
// have no duplicates, and the scan says so without the walk.
func TestMayRepeatKeysDecidesUsualBodies(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/valid/*.json")
	if len(files) == 0 {
		t.Fatal("no testdata objects")
	}
	for _, f := range files {
		if mayRepeatKeys(string(readFile(t, f))) {
			t.Errorf("%s: mayRepeatKeys = true; want false", f)
		}
	}
}

// TestMayRepeatKeysAgrees: where the scan finds no possible duplicate, the
// walk finds none either, on random documents whose keys are drawn from a
// few names (one escaped), nested in objects and lists; both answers occur.
func TestMayRepeatKeysAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	certain, maybe := 0, 0
	for range 20000 {
		doc := randomDoc(rng, 3)
		var d deduper
		hasDup := d.value(gjson.Parse(doc)) != nil
		if mayRepeatKeys(doc) {
			maybe++
			continue
		}
		certain++
		if hasDup {
			t.Fatalf("mayRepeatKeys(%s) = false, but it repeats a key", doc)
		}
	}
	if certain == 0 || maybe == 0 {
		t.Fatalf("certain %d, maybe %d: both must occur", certain, maybe)
	}
}

// randomDoc is a JSON object of up to depth levels, with keys drawn from
// a few names and values of every kind, strings with quotes and braces.
func randomDoc(rng *rand.Rand, depth int) string {
	keys := []string{`"a"`, `"b"`, `"c"`, `"\u0061"`, `"{"`}
	values := []string{`1`, `"x"`, `"}\"]"`, `null`, `[]`, `{}`}
	var b strings.Builder
	b.WriteByte('{')
	for i := range rng.IntN(4) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(keys[rng.IntN(len(keys))] + ":")
		switch {
		case depth > 0 && rng.IntN(3) == 0:
			b.WriteString(randomDoc(rng, depth-1))
		case depth > 0 && rng.IntN(3) == 0:
			b.WriteString("[" + randomDoc(rng, depth-1) + "," + values[rng.IntN(len(values))] + "]")
		default:
			b.WriteString(values[rng.IntN(len(values))])
		}
	}
	b.WriteByte('}')
	return b.String()
}
