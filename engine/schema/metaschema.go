package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
)

// The jsonschema compiler checks a document against JSON Schema 2020-12's
// metaschema before it compiles it. The validator is now compiled on first
// use (see lazy.go), so the translator refuses at load what that check
// refused, phrased as the compiler phrased it: the value keywords it hands
// on unchanged must have the metaschema's types, and junctions must list
// at least one schema (everything else it writes itself). As
// kube-apiserver's CRD validation does, a definition is refused whole,
// with every problem named by its schema path.

// checkKeyword checks the value of one keyword of the translated document;
// path names the keyword.
func (t *translator) checkKeyword(path, kw string, v any) {
	if n, ok := v.(json.Number); ok && !exact(n) {
		// Kubernetes decodes schema numbers as float64 and refuses what
		// does not fit; big.Rat refuses exponents past a billion.
		t.problemf(path, "number out of range: %s", n)
		return
	}
	switch kw {
	case "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum":
		t.expect(path, v, "number")
	case "multipleOf":
		if t.expect(path, v, "number") && rat(v).Sign() <= 0 {
			t.problemf(path, "must be > 0 but found %v", v)
		}
	case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
		if t.expect(path, v, "integer") && rat(v).Sign() < 0 {
			t.problemf(path, "must be >= 0 but found %v", v)
		}
	case "uniqueItems":
		t.expect(path, v, "boolean")
	case "enum":
		t.expect(path, v, "array")
	case "required":
		t.checkNames(path, v)
	}
}

// checkNames checks a list of property names: strings, none twice.
func (t *translator) checkNames(path string, v any) {
	if !t.expect(path, v, "array") {
		return
	}
	list := v.([]any)
	if i, j := firstRepeat(list); i >= 0 {
		t.problemf(path, "items at index %d and %d are equal", j, i)
	}
	for i, name := range list {
		t.expect(path+"["+strconv.Itoa(i)+"]", name, "string")
	}
}

// expect reports whether v has the JSON type want, adding the problem
// when it has not. An integer is a number with no fraction, however
// written (1.0, 1e3).
func (t *translator) expect(path string, v any, want string) bool {
	got := decodedType(v)
	if got == want || want == "integer" && got == "number" && rat(v).IsInt() {
		return true
	}
	t.problemf(path, "expected %s, but got %s", want, got)
	return false
}

// decodedType names the JSON type of a decoded value as the jsonschema
// library does: every number is a number (jsonType, for objects, is
// kube-apiserver's phrasing).
func decodedType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// exact reports whether a decoded number has an exact value (rat panics
// on one that has not).
func exact(n json.Number) bool {
	_, ok := new(big.Rat).SetString(string(n))
	return ok
}

// rat is the exact value of a decoded number.
func rat(v any) *big.Rat {
	r, ok := new(big.Rat).SetString(string(v.(json.Number)))
	if !ok {
		panic(fmt.Sprintf("schema: %q decoded as a number", v))
	}
	return r
}

// firstRepeat returns the first item i equal to an earlier one, and the
// first such earlier item j, as the validator's uniqueItems reports them;
// -1, -1 when every item is unique.
func firstRepeat(list []any) (i, j int) {
	for i := 1; i < len(list); i++ {
		for j := range i {
			if jsonEqual(list[i], list[j]) {
				return i, j
			}
		}
	}
	return -1, -1
}

// jsonEqual compares decoded values as JSON Schema does: numbers by
// value (1 and 1.0 are equal).
func jsonEqual(a, b any) bool {
	x, xok := a.(json.Number)
	y, yok := b.(json.Number)
	if xok && yok && exact(x) && exact(y) {
		return rat(x).Cmp(rat(y)) == 0
	}
	return reflect.DeepEqual(a, b)
}
