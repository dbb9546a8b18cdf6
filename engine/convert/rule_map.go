package convert

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// mapValues replaces the string at path by its entry in values; a string
// that is no key of values stays as it is. Parse checks that values is a
// bijection, so the swapped map undoes it.
type mapValues struct {
	path    path
	values  map[string]string
	encoded map[string]string // values' values as JSON
}

func newMapValues(p path, values map[string]string) mapValues {
	r := mapValues{path: p, values: values, encoded: make(map[string]string, len(values))}
	for k, v := range values {
		r.encoded[k] = jsonString(v)
	}
	return r
}

func (r mapValues) apply(d doc) {
	v := d.value(r.path)
	if v.Type != gjson.String {
		return
	}
	if to, ok := r.encoded[v.Str]; ok && to != v.Raw {
		d.putRaw(r.path, to)
	}
}

func (r mapValues) inverse() rule {
	swapped := make(map[string]string, len(r.values))
	for k, v := range r.values {
		swapped[v] = k
	}
	return newMapValues(r.path, swapped)
}

func (r mapValues) uses() []use { return []use{inPlace("path", r.path)} }

func (r mapValues) String() string {
	pairs := make([]string, 0, len(r.values))
	for _, k := range slices.Sorted(maps.Keys(r.values)) {
		pairs = append(pairs, strconv.Quote(k)+": "+strconv.Quote(r.values[k]))
	}
	return flow("mapValues", "path", r.path.text, "values", "{"+strings.Join(pairs, ", ")+"}")
}

// duplicateValue returns two keys of values that map to the same value,
// sorted, or ok false when values is a bijection.
func duplicateValue(values map[string]string) (a, b string, ok bool) {
	seen := make(map[string]string, len(values))
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if prev, dup := seen[values[k]]; dup {
			return prev, k, true
		}
		seen[values[k]] = k
	}
	return "", "", false
}
