package schema

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// TestQuickDecidesValidObjects: the quick check accepts the valid objects
// of the testdata whose schemas use only what it decides, so that the fast
// path is taken; the others go to the validator.
func TestQuickDecidesValidObjects(t *testing.T) {
	undecided := map[string]bool{ // schemas with keywords the quick check leaves to the validator
		"keywords": true, // multipleOf, uniqueItems, fractional bounds
	}
	schemas, _ := filepath.Glob("testdata/*/schema.json")
	for _, file := range schemas {
		name := filepath.Base(filepath.Dir(file))
		t.Run(name, func(t *testing.T) {
			s, err := Compile(readFile(t, file))
			if err != nil {
				t.Fatal(err)
			}
			accepted := 0
			valid := inputs(t, filepath.Dir(file), "valid")
			for _, in := range valid {
				if s.quickCheck().valid(gjson.ParseBytes(prepared(t, s, readFile(t, in)))) {
					accepted++
				}
			}
			if undecided[name] && accepted == len(valid) {
				t.Errorf("the quick check decided all %d valid objects; take %q out of undecided", len(valid), name)
			}
			if !undecided[name] && accepted != len(valid) {
				t.Errorf("the quick check accepted %d of %d valid objects", accepted, len(valid))
			}
		})
	}
}

// TestQuickNeverMoreLenient: whatever the quick check accepts, the
// validator accepts. It runs on every testdata object and on thousands of
// variations of them (values of other types, lengths and signs; members
// removed or added), and both answers must occur.
func TestQuickNeverMoreLenient(t *testing.T) {
	schemas, _ := filepath.Glob("testdata/*/schema.json")
	accepted, refused := 0, 0
	for _, file := range schemas {
		dir := filepath.Dir(file)
		s, err := Compile(readFile(t, file))
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, uint64(len(dir))))
		var objects [][]byte
		for _, kind := range []string{"valid", "invalid", "pipeline"} {
			for _, in := range inputs(t, dir, kind) {
				objects = append(objects, prepared(t, s, readFile(t, in)))
			}
		}
		for _, obj := range objects {
			for i := range 400 {
				doc := obj
				if i > 0 {
					doc = mutate(rng, obj, 1+rng.IntN(3))
				}
				v := s.compiledValidator()
				c := causes{doc: v.doc, obj: gjson.ParseBytes(doc)}
				whole := validate(v.schema, c, goValue(c.obj), nil)
				if !s.quickCheck().valid(c.obj) {
					refused++
					// Thinning the value for the validator changes no answer short of
					// MaxCauses; checked on a third of them, to keep the test's time.
					if refused%3 != 0 {
						continue
					}
					if bounded := s.validateBounded(c); !reflect.DeepEqual(bounded, whole) {
						t.Fatalf("%s: thinned %v, whole %v:\n%s", dir, bounded, whole, doc)
					}
					continue
				}
				accepted++
				if errs := whole; len(errs) > 0 {
					t.Fatalf("%s: the quick check accepted what the validator refuses (%v):\n%s", dir, errs, doc)
				}
			}
		}
	}
	if accepted == 0 || refused == 0 {
		t.Fatalf("accepted %d, refused %d: the variations do not exercise both answers", accepted, refused)
	}
	t.Logf("accepted %d, refused %d", accepted, refused)
}

// prepared is obj as Validate receives it: pruned and defaulted.
func prepared(t *testing.T, s *Schema, obj []byte) []byte {
	pruned, _ := s.Prune(obj)
	out, err := s.Default(pruned)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// replacements are values of every JSON type, of lengths, signs and forms
// that bounds, patterns, formats and integer checks tell apart.
var replacements = []string{
	`null`, `true`, `false`, `0`, `1`, `-1`, `7`, `100`, `65536`, `-2147483649`, `1.5`, `2.0`, `1e3`,
	`99999999999999999999`, `""`, `"a"`, `"abc"`, `"é"`, `"UPPER"`, `"a-b.c"`, `"2024-01-02"`,
	`"2024-01-02T03:04:05Z"`, `"10.0.0.1"`, `"5m"`, `"` + strings.Repeat("x", 300) + `"`,
	`[]`, `[1]`, `["a","a"]`, `[{}]`, `{}`, `{"a":1}`, `{"name":"x"}`,
}

// mutate applies n random changes to doc: a value replaced, a member
// removed, or a member added.
func mutate(rng *rand.Rand, doc []byte, n int) []byte {
	for range n {
		paths := leafPaths(gjson.ParseBytes(doc), "")
		if len(paths) == 0 {
			return doc
		}
		p := paths[rng.IntN(len(paths))]
		var err error
		var out []byte
		switch rng.IntN(4) {
		case 0:
			out, err = sjson.DeleteBytes(doc, p)
		case 1:
			parent := p[:max(strings.LastIndexByte(p, '.'), 0)]
			extra := "extra" + fmt.Sprint(rng.IntN(3))
			if parent != "" {
				extra = parent + "." + extra
			}
			out, err = sjson.SetRawBytes(doc, extra, []byte(replacements[rng.IntN(len(replacements))]))
		default:
			out, err = sjson.SetRawBytes(doc, p, []byte(replacements[rng.IntN(len(replacements))]))
		}
		if err == nil && gjson.ValidBytes(out) {
			doc = out
		}
	}
	return doc
}

// leafPaths lists the sjson paths of every value in v, containers included.
func leafPaths(v gjson.Result, prefix string) []string {
	var out []string
	i := 0
	v.ForEach(func(k, x gjson.Result) bool {
		key := fmt.Sprint(i)
		if k.Type == gjson.String {
			key = gjson.Escape(k.Str)
		}
		i++
		p := key
		if prefix != "" {
			p = prefix + "." + key
		}
		out = append(out, p)
		if x.IsObject() || x.IsArray() {
			out = append(out, leafPaths(x, p)...)
		}
		return true
	})
	return slices.Clip(out)
}
