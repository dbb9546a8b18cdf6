package prove

import (
	"os"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/registry"
)

func loadShipped(t *testing.T) *registry.Snapshot {
	t.Helper()
	snap, problems := registry.Load(os.DirFS("../../schemas"), os.DirFS("../../conversions"))
	if len(problems) > 0 {
		t.Fatalf("shipped files have problems: %v", problems)
	}
	return snap
}

// Every variant of every shipped version is valid, and the variants
// differ: a proof over objects the schema refuses proves nothing.
func TestGenerateShippedObjects(t *testing.T) {
	t.Parallel()
	for _, r := range loadShipped(t).Resources() {
		p := newProver(r)
		for _, v := range p.versions {
			seen := map[string]bool{}
			for i := range variants {
				obj, why := p.generate(v, i)
				if why != "" {
					t.Errorf("%s %s: %s", r.Kind, v.Name, why)
					continue
				}
				seen[string(obj)] = true
			}
			if len(seen) < len(variants)/2 {
				t.Errorf("%s %s: only %d different objects", r.Kind, v.Name, len(seen))
			}
		}
	}
}

func TestGenerateCoversTheSchema(t *testing.T) {
	t.Parallel()
	schema := gjson.Parse(`{"type":"object","required":["r"],"properties":{
		"r":{"type":"string","enum":["a","b","c"]},
		"o":{"type":"integer","minimum":10,"maximum":12},
		"n":{"type":"number","multipleOf":0.5},
		"l":{"type":"array","maxItems":2,"items":{"type":"string","format":"date"}},
		"m":{"type":"object","additionalProperties":{"type":"boolean"}},
		"p":{"type":"string","pattern":"^[a-z]+-[a-z]+$","maxLength":3},
		"x":{"x-kubernetes-int-or-string":true}}}`)
	full := string(newGenerator(0).object(nil, schema, 0))
	for _, path := range []string{"r", "o", "n", "l.1", "m.key-2", "p", "x"} {
		if !gjson.Get(full, path).Exists() {
			t.Errorf("the full object lacks %s: %s", path, full)
		}
	}
	if o := gjson.Get(full, "o").Int(); o < 10 || o > 12 {
		t.Errorf("o = %d, out of bounds", o)
	}
	if l := gjson.Get(full, "l.#").Int(); l != 2 {
		t.Errorf("l has %d items, want maxItems 2", l)
	}
	if p := gjson.Get(full, "p").Str; len(p) > 3 {
		t.Errorf("p = %q, longer than maxLength", p)
	}
	minimal := string(newGenerator(1).object(nil, schema, 0))
	if gjson.Get(minimal, "o").Exists() || !gjson.Get(minimal, "r").Exists() {
		t.Errorf("the minimal object must hold the required fields only: %s", minimal)
	}
}
