package convert

import (
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestRemainder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		original, projected string
		want                string // "" for nil
	}{
		{"the same", `{"a":1,"b":{"c":[1,2]}}`, `{"b":{"c":[1,2]},"a":1.0}`, ""},
		{"a field the version lacks", `{"spec":{"a":1,"b":2}}`, `{"spec":{"a":1}}`, `[{"path":["spec","b"],"original":2}]`},
		{"a constant a rule set", `{"spec":{}}`, `{"spec":{"kind":"x"}}`, `[{"path":["spec","kind"],"projected":"x"}]`},
		{"the rest of a list", `{"spec":{"o":["a","b"]}}`, `{"spec":{"o":["a"]}}`, `[{"path":["spec","o"],"original":["a","b"],"projected":["a"]}]`},
		{"a rounded number", `{"spec":{"p":2.5}}`, `{"spec":{"p":3}}`, `[{"path":["spec","p"],"original":2.5,"projected":3}]`},
		{"an object the version lacks", `{"spec":{"x":{"y":1}}}`, `{"spec":{}}`, `[{"path":["spec","x"],"original":{"y":1}}]`},
		{"an object turned scalar", `{"spec":{"x":{"y":1}}}`, `{"spec":{"x":1}}`, `[{"path":["spec","x"],"original":{"y":1},"projected":1}]`},
		{"lists of objects as wholes", `{"l":[{"a":1},{"a":2}]}`, `{"l":[{"a":1},{"a":3}]}`, `[{"path":["l"],"original":[{"a":1},{"a":2}],"projected":[{"a":1},{"a":3}]}]`},
		{"keys with dots", `{"metadata":{"annotations":{"example.com/x":"1"}}}`, `{"metadata":{"annotations":{}}}`,
			`[{"path":["metadata","annotations","example.com/x"],"original":"1"}]`},
		{"several", `{"a":1,"b":2}`, `{"b":3,"c":4}`, `[{"path":["a"],"original":1},{"path":["b"],"original":2,"projected":3},{"path":["c"],"projected":4}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Remainder([]byte(tt.original), []byte(tt.projected))
			if tt.want == "" {
				if got != nil {
					t.Fatalf("Remainder = %s, want nil", got)
				}
				return
			}
			jsoneq.Assert(t, got, []byte(tt.want))
			// What the projection holds, unchanged, gets the original back.
			restored, err := Restore([]byte(tt.projected), got)
			if err != nil {
				t.Fatal(err)
			}
			jsoneq.Assert(t, restored, []byte(tt.original))
		})
	}
}

// Restore puts the original back only where the user did not change what
// the projection showed.
func TestRestore(t *testing.T) {
	t.Parallel()
	rounded := `[{"path":["spec","p"],"original":2.5,"projected":3}]`
	hidden := `[{"path":["spec","hidden"],"original":{"x":1}}]`
	list := `[{"path":["spec","o"],"original":["a","b"],"projected":["a"]}]`
	set := `[{"path":["spec","kind"],"projected":"x"}]`
	tests := []struct {
		name, obj, remainder, want string
	}{
		{"unchanged value", `{"spec":{"p":3}}`, rounded, `{"spec":{"p":2.5}}`},
		{"same value written otherwise", `{"spec":{"p":3.0}}`, rounded, `{"spec":{"p":2.5}}`},
		{"changed value", `{"spec":{"p":4}}`, rounded, `{"spec":{"p":4}}`},
		{"value deleted by the user", `{"spec":{}}`, rounded, `{"spec":{}}`},
		{"hidden field comes back", `{"spec":{"a":1}}`, hidden, `{"spec":{"a":1,"hidden":{"x":1}}}`},
		{"hidden field, parent gone", `{}`, hidden, `{"spec":{"hidden":{"x":1}}}`},
		{"hidden field set by the user", `{"spec":{"hidden":2}}`, hidden, `{"spec":{"hidden":2}}`},
		{"hidden field, parent no object", `{"spec":[1]}`, hidden, `{"spec":[1]}`},
		{"rest of a list", `{"spec":{"o":["a"]}}`, list, `{"spec":{"o":["a","b"]}}`},
		{"list changed", `{"spec":{"o":["z"]}}`, list, `{"spec":{"o":["z"]}}`},
		{"constant removed", `{"spec":{"kind":"x","a":1}}`, set, `{"spec":{"a":1}}`},
		{"constant changed", `{"spec":{"kind":"y"}}`, set, `{"spec":{"kind":"y"}}`},
		{"numeric and dotted keys", `{"m":{}}`, `[{"path":["m","80"],"original":1},{"path":["m","a.b/c"],"original":2},{"path":["m",":x"],"original":3}]`,
			`{"m":{"80":1,"a.b/c":2,":x":3}}`},
		{"empty remainder", `{"a":1}`, ``, `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := []byte(tt.obj)
			got, err := Restore(obj, []byte(tt.remainder))
			if err != nil {
				t.Fatal(err)
			}
			jsoneq.Assert(t, got, []byte(tt.want))
			if string(obj) != tt.obj {
				t.Errorf("Restore modified its input: %s", obj)
			}
		})
	}
}

func TestRestoreRefusesBrokenRemainders(t *testing.T) {
	t.Parallel()
	for _, rem := range []string{`{}`, `[{"original":1}]`, `[{"path":"spec.a"}]`, `[{"path":[1]}]`} {
		if _, err := Restore([]byte(`{}`), []byte(rem)); engine.ErrorCode(err) != engine.CodeInternal {
			t.Errorf("Restore(%s) error = %v, want Internal", rem, err)
		}
	}
}

// For any two objects a and b, b with the remainder of (a, b) restored is a.
func TestRemainderRestoresAnyPair(t *testing.T) {
	t.Parallel()
	docs := []string{
		`{}`,
		`{"spec":{}}`,
		`{"spec":{"a":1,"b":"x","c":[1,{"d":2}]}}`,
		`{"spec":{"a":1.5,"nested":{"deep":{"x":null}}},"status":{"ok":true}}`,
		`{"spec":{"a":[],"nested":{"deep":{"y":false}}},"metadata":{"labels":{"a.b/c":"1","80":"x"}}}`,
		`{"spec":"flat","metadata":{"annotations":{"":"empty key"}}}`,
		`{"spec":{"b":{"c":{"d":{"e":1}}}},"x":[[]]}`,
	}
	for _, a := range docs {
		for _, b := range docs {
			rem := Remainder([]byte(a), []byte(b))
			got, err := Restore([]byte(b), rem)
			if err != nil {
				t.Fatalf("Restore(%s, %s): %v", b, rem, err)
			}
			if !jsoneq.Equal(got, []byte(a)) {
				t.Errorf("a %s\nb %s\nremainder %s\nrestored %s", a, b, rem, got)
			}
			if a != b && rem == nil {
				t.Errorf("no remainder for different objects %s and %s", a, b)
			}
		}
	}
}
