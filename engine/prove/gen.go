package prove

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/tidwall/gjson"
)

// variant says how one generated object fills what its schema leaves open.
type variant struct {
	name     string
	optional int // 1: every optional field, 0: none, -1: each by chance
	items    int // items of lists and entries of maps, within the schema's bounds
	seed     uint64
}

// variants are the objects generated for every version: the fullest and
// the emptiest, lists of 0, 1 and 3 items, and a few chosen by chance.
// Seeds are fixed: a proof gives the same result every run.
var variants = []variant{
	{"full, lists of 3", 1, 3, 1},
	{"required fields only, empty lists", 0, 0, 2},
	{"full, lists of 1", 1, 1, 3},
	{"some fields, lists of 3", -1, 3, 4},
	{"some fields, lists of 1", -1, 1, 5},
	{"some fields, empty lists", -1, 0, 6},
	{"some fields, lists of 3", -1, 3, 7},
	{"some fields, lists of 1", -1, 1, 8},
}

// maxDepth stops a schema that nests without end (through items of
// preserve-unknown-fields, say) from generating without end.
const maxDepth = 12

// generator writes one object's JSON from a schema.
type generator struct {
	v     variant
	index int // which variant, to rotate enum values and scalars
	rng   *rand.Rand
	n     int // values written so far, to make strings unique
}

func newGenerator(index int) *generator {
	v := variants[index]
	return &generator{v: v, index: index, rng: rand.New(rand.NewPCG(v.seed, 0x5eed))}
}

// value writes a value for schema s.
func (g *generator) value(out []byte, s gjson.Result, depth int) []byte {
	g.n++
	switch typeOf(s) {
	case "object":
		return g.object(out, s, depth)
	case "array":
		return g.array(out, s, depth)
	case "integer":
		return g.integer(out, s)
	case "number":
		return g.number(out, s)
	case "boolean":
		return strconv.AppendBool(out, (g.index+g.n)%2 == 0)
	case "int-or-string":
		if g.n%2 == 0 {
			return g.integer(out, s)
		}
		return g.string(out, s)
	}
	return g.string(out, s)
}

// typeOf is the schema's type, guessed from its keywords when it has none.
func typeOf(s gjson.Result) string {
	switch {
	case s.Get("x-kubernetes-int-or-string").Bool():
		return "int-or-string"
	case s.Get("type").Exists():
		return s.Get("type").Str
	case s.Get("properties").Exists() || s.Get("additionalProperties").Exists() || s.Get("x-kubernetes-preserve-unknown-fields").Bool():
		return "object"
	case s.Get("items").Exists():
		return "array"
	}
	return "string"
}

// object writes an object: the required properties, the optional ones as
// the variant says, and map entries for additionalProperties.
func (g *generator) object(out []byte, s gjson.Result, depth int) []byte {
	out = append(out, '{')
	n := 0
	member := func(key string, schema gjson.Result) {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(gjson.AppendJSONString(out, key), ':')
		out = g.value(out, schema, depth+1)
		n++
	}
	required := map[string]bool{}
	for _, r := range s.Get("required").Array() {
		required[r.Str] = true
	}
	props := s.Get("properties").Map()
	for _, key := range slices.Sorted(maps.Keys(props)) {
		if depth == 0 && (key == "apiVersion" || key == "kind" || key == "metadata") {
			continue
		}
		if required[key] || depth < maxDepth && g.optional() {
			member(key, props[key])
		}
	}
	if ap := s.Get("additionalProperties"); ap.IsObject() && depth < maxDepth {
		for i := range g.count(s, "minProperties", "maxProperties") {
			member("key-"+strconv.Itoa(i), ap)
		}
	} else if len(props) == 0 && s.Get("x-kubernetes-preserve-unknown-fields").Bool() && g.v.items > 0 {
		member("anything", gjson.Parse(`{"type":"object","properties":{"goes":{"type":"integer"}}}`))
	}
	return append(out, '}')
}

// optional decides whether an optional field is present.
func (g *generator) optional() bool {
	if g.v.optional >= 0 {
		return g.v.optional == 1
	}
	return g.rng.IntN(2) == 0
}

// array writes a list of the variant's length, within the schema's bounds.
func (g *generator) array(out []byte, s gjson.Result, depth int) []byte {
	out = append(out, '[')
	items := s.Get("items")
	if depth < maxDepth {
		for i := range g.count(s, "minItems", "maxItems") {
			if i > 0 {
				out = append(out, ',')
			}
			out = g.value(out, items, depth+1)
		}
	}
	return append(out, ']')
}

// count is the variant's number of items, within the bounds min and max.
func (g *generator) count(s gjson.Result, min, max string) int {
	n := g.v.items
	if lo := s.Get(min); lo.Exists() && n < int(lo.Int()) {
		n = int(lo.Int())
	}
	if hi := s.Get(max); hi.Exists() && n > int(hi.Int()) {
		n = int(hi.Int())
	}
	return n
}
