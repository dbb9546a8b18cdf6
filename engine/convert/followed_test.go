package convert

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// TestTypesFollowed runs every case under testdata/followed/<case>/:
// rules.yaml is v1's toHub, rules that coerce (or read back) a value whose
// type only the rules before tell, with no from:; in.json is a v1 object
// and want.json the hub (v2) object it converts to, and back. Each case
// runs at the object's root and again inside forEach, on the items of
// spec.items (paths without "spec."), unless a root-only file says why
// not. The schemas of both versions are in testdata/followed/schemas.json.
func TestTypesFollowed(t *testing.T) {
	t.Parallel()
	shapes := followedShapes(t)
	dirs, err := filepath.Glob("testdata/followed/*/rules.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range dirs {
		dir := filepath.Dir(file)
		rules, in, want := readFile(t, file), readFile(t, dir+"/in.json"), readFile(t, dir+"/want.json")
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			roundTrip(t, shapes, indent(rules, "    "), in, want)
		})
		if _, err := os.Stat(dir + "/root-only"); err == nil {
			continue
		}
		t.Run(filepath.Base(dir)+"/inside forEach", func(t *testing.T) {
			t.Parallel()
			nested := "    - forEach:\n        path: spec.items\n        rules:\n" +
				indent(strings.ReplaceAll(rules, "spec.", ""), "        ")
			roundTrip(t, shapes, nested, intoItems(t, in), intoItems(t, want))
		})
	}
}

// roundTrip binds v1's toHub rules (YAML lines, indented), converts in to
// the hub and back, and wants want and in.
func roundTrip(t *testing.T, shapes map[string]Shape, toHub string, in, want string) {
	t.Helper()
	r, err := Parse([]byte(thingFile("  v1:\n    toHub:\n" + toHub)))
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	if r, err = r.Bind(shapes); err != nil {
		t.Fatalf("Bind:\n%v", err)
	}
	hub, err := r.Convert([]byte(in), "v1", "v2")
	if err != nil {
		t.Fatal(err)
	}
	jsoneq.Assert(t, hub, []byte(want))
	back, err := r.Convert(hub, "v2", "v1")
	if err != nil {
		t.Fatal(err)
	}
	jsoneq.Assert(t, back, []byte(in))
}

func followedShapes(t *testing.T) map[string]Shape {
	t.Helper()
	schemas := gjson.Parse(readFile(t, "testdata/followed/schemas.json"))
	return map[string]Shape{"v1": shapeOf(schemas.Get("v1").Raw), "v2": shapeOf(schemas.Get("v2").Raw)}
}

// intoItems moves an object's spec into the one item of spec.items.
func intoItems(t *testing.T, obj string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(obj), &m); err != nil {
		t.Fatal(err)
	}
	m["spec"] = json.RawMessage(`{"items":[` + string(m["spec"]) + `]}`)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// indent puts prefix before every line of text.
func indent(text, prefix string) string {
	lines := strings.SplitAfter(strings.TrimRight(text, "\n"), "\n")
	return prefix + strings.Join(lines, prefix) + "\n"
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
