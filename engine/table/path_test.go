package table

import (
	"errors"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// pathObject exercises client-go's evaluation rules.
const pathObject = `{
  "metadata": {"name": "x", "labels": {"app.kubernetes.io/name": "web", "a": "1"}},
  "spec": {
    "items": [
      {"id": "a", "n": 1, "ratio": 0.5, "ok": true, "word": "x"},
      {"id": "b", "n": 2, "ratio": 1.5, "ok": false, "reason": "Why"},
      {"id": "c", "n": 3, "ratio": 2.5, "word": null}
    ],
    "map": {"zeta": {"id": "z"}, "alpha": {"id": "a"}},
    "holes": [{"id": "h", "word": null}],
    "empty": [],
    "nothing": null,
    "": "empty key",
    "text": "plain"
  }
}`

func TestPathFirst(t *testing.T) {
	t.Parallel()
	// want is the cell of a string column: the first value, or null.
	tests := []struct{ name, path, want string }{
		{"key", ".spec.text", `"plain"`},
		{"escaped dots", `.metadata.labels.app\.kubernetes\.io/name`, `"web"`},
		{"bracket key", ".metadata.labels['a']", `"1"`},
		{"root marker", "$.spec.text", `"plain"`},
		{"empty key", ".spec.", `"empty key"`},
		{"missing key", ".spec.missing.deeper", `null`},
		{"key of an array", ".spec.items.id", `null`},
		{"key of null", ".spec.nothing.id", `null`},
		{"index", ".spec.items[1].id", `"b"`},
		{"negative index", ".spec.items[-1].id", `"c"`},
		{"index out of range", ".spec.items[3].id", `null`},
		{"negative index out of range", ".spec.items[-4].id", `null`},
		{"index of an object", ".spec.map[0]", `null`},
		{"index of null", ".spec.nothing[0]", `null`},
		{"slice", ".spec.items[1:3].id", `"b"`},
		{"slice with a step", ".spec.items[::2].id", `"a"`},
		{"open slice from the end", ".spec.items[-1:].id", `"c"`},
		{"empty slice", ".spec.items[0:0].id", `null`},
		{"slice of an empty array", ".spec.empty[*]", `null`},
		{"slice past the end", ".spec.items[1:9].id", `null`},
		{"all items", ".spec.items[*].id", `"a"`},
		{"all items skip missing keys", ".spec.items[*].reason", `"Why"`},
		{"wildcard on an object orders by key", ".spec.map.*.id", `"a"`},
		{"wildcard on an array", ".spec.items.*.id", `"a"`},
		{"string filter", `.spec.items[?(@.id=="c")].n`, `"3"`},
		{"string order", `.spec.items[?(@.id>"a")].id`, `"b"`},
		{"bool filter", ".spec.items[?(@.ok==false)].id", `"b"`},
		{"exists filter", ".spec.items[?(@.reason)].id", `"b"`},
		{"exists filter on null", ".spec.holes[?(@.word)].id", `"h"`},
		// A slice yields items; a filter then iterates each item's values.
		{"filter after a slice", ".spec.items[2:][?(@.word)].id", `null`},
		{"float filter", ".spec.items[?(@.ratio>1)].id", `"b"`},
		// Literal numbers are float64 and JSON integers int64 in client-go:
		// text/template never finds them equal or ordered.
		{"integer field vs literal", ".spec.items[?(@.n==2)].id", `null`},
		{"integer field vs literal order", ".spec.items[?(@.n>1)].id", `null`},
		// ... and a comparison of different kinds is true for != only.
		{"mixed kinds !=", `.spec.items[?(@.n!="x")].id`, `"a"`},
		{"null !=", `.spec.items[?(@.word!="x")].id`, `"c"`},
		{"bool order", ".spec.items[?(@.ok<true)].id", `null`},
		{"filter on an object's values", `.spec.map[?(@.id=="z")].id`, `"z"`},
		{"exists filter on numbers", `.spec.items[?(@.n)].id`, `"a"`},
		// A failing left operand is compared as what its failing step got.
		{"failing left operand", `.spec.items[?(@.word[0]=="x")].id`, `"a"`},
		{"several values to compare", `.spec.items[?(@.*=="a")].id`, `null`},
		{"object in a string column", ".spec.map.alpha", `"{\"id\":\"a\"}"`},
		{"null in a string column", ".spec.nothing", `"\u003cno value\u003e"`},
		{"number in a string column", ".spec.items[1].ratio", `"1.5"`},
		{"bool in a string column", ".spec.items[0].ok", `"true"`},
		{"recursive descent", "..id", `null`},
		{"union", ".spec.items[0,1].id", `null`},
		{"unknown operator", `.spec.items[?(@.id=<"a")].id`, `null`},
		{"quote inside a key", `.spec"x"`, `null`},
		{"literal step", `.spec "x"`, `null`},
		{"template keyword", ".spec range", `null`},
		{"closing brace", ".spec}", `null`},
	}
	root := gjson.Parse(pathObject)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := compilePath(tt.path)
			if err != nil {
				t.Fatalf("compilePath(%q): %v", tt.path, err)
			}
			v, found := p.first(root, 0)
			if got := string(appendCell(nil, "string", v, found, time.Time{})); got != tt.want {
				t.Errorf("%s: got %s, want %s", tt.path, got, tt.want)
			}
		})
	}
}

func TestCompilePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path        string
		syntaxError bool // client-go's Parse fails: the column is dropped
		unsupported bool // parsed but not evaluated here: null cells
		single      bool // walked without allocating
	}{
		{path: ".spec.a.b", single: true},
		{path: ".spec.a[0].b", single: true},
		{path: ".spec.a[-1]", single: true},
		{path: ".spec.a[*].b"},
		{path: ".spec.a[1:2]"},
		{path: `.spec.a[?(@.b=="c")].d`},
		{path: ".spec.*"},
		{path: ".spec[", syntaxError: true},
		{path: ".spec[x]", syntaxError: true},
		{path: ".spec[1.5]", syntaxError: true},
		{path: ".spec[-]", syntaxError: true},
		{path: `.spec["a"]`, syntaxError: true},
		{path: `.spec[?(@.a=="b"]`, syntaxError: true},
		{path: `.spec[?(@.a=="b)]`, syntaxError: true},
		{path: `.spec[?(@.a==1.2.3)]`, syntaxError: true},
		{path: ".spec.a{", syntaxError: true},
		{path: ".spec\t.a", syntaxError: true},
		{path: ".spec\n", syntaxError: true},
		{path: ".spec.a#", single: true},
		{path: "..a", unsupported: true},
		{path: ".spec[0,1]", unsupported: true},
		{path: ".spec}", unsupported: true},
		{path: ".spec end", unsupported: true},
		{path: ".spec 1", unsupported: true},
		{path: `.spec[?(@.a<>"b")]`, unsupported: true},
	}
	for _, tt := range tests {
		p, err := compilePath(tt.path)
		if (err != nil) != tt.syntaxError {
			t.Errorf("compilePath(%q): error %v, want an error: %t", tt.path, err, tt.syntaxError)
			continue
		}
		if errors.Is(err, errUnsupported) {
			t.Errorf("compilePath(%q): errUnsupported escaped", tt.path)
		}
		single := !p.unsupported && p.single == len(p.steps)
		if err == nil && (p.unsupported != tt.unsupported || single != tt.single) {
			t.Errorf("compilePath(%q): unsupported %t single %t, want %t %t",
				tt.path, p.unsupported, single, tt.unsupported, tt.single)
		}
	}
}
