package table

import (
	"errors"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// errJSONPath is any evaluation failure of client-go's jsonpath (a slice of
// a non-array, an index out of range, a filter comparing several values).
// The tableconvertor turns every one of them into a null cell, so their
// messages do not matter.
var errJSONPath = errors.New("jsonpath evaluation failed")

// evalSteps applies steps in turn to the values in, as client-go's evalList
// does with missing keys allowed. On failure it returns, as client-go does,
// what the failing step returned (its input) along with the error: a filter
// looks at those values even so.
func evalSteps(in []gjson.Result, steps []step) ([]gjson.Result, error) {
	for i := range steps {
		out, err := steps[i].apply(in)
		if err != nil {
			return out, err
		}
		in = out
	}
	return in, nil
}

func (s *step) apply(in []gjson.Result) ([]gjson.Result, error) {
	switch s.kind {
	case stepField:
		var out []gjson.Result
		for _, v := range in {
			if r := lookupKey(v, s.key, s.gkey); r.Exists() {
				out = append(out, r)
			}
		}
		return out, nil
	case stepWildcard:
		var out []gjson.Result
		for _, v := range in {
			if v.IsObject() || v.IsArray() {
				eachElement(v, func(item gjson.Result) bool {
					out = append(out, item)
					return true
				})
			}
		}
		return out, nil
	case stepSlice:
		return applySlice(in, s.slice)
	case stepFilter:
		return s.filter.apply(in)
	}
	return in, errUnsupported // literals: compilePath and parseOperand keep them out
}

// applySlice is client-go's evalArray: nulls are skipped, anything else that
// is not an array fails, and so does a range outside the array.
func applySlice(in []gjson.Result, params [3]sliceParam) ([]gjson.Result, error) {
	var out []gjson.Result
	for _, v := range in {
		if v.Type == gjson.Null {
			continue
		}
		if !v.IsArray() {
			return in, errJSONPath
		}
		items := v.Array()
		n := len(items)
		start, end := params[0].value, params[1].value
		if start < 0 {
			start += n
		}
		if !params[1].known {
			end = n
		}
		if end < 0 || (end == 0 && params[1].derived) {
			end += n
		}
		if start == end {
			return out, nil // client-go stops here, even with values left
		}
		if start < 0 || start >= n || end < 0 || end > n || start > end {
			return in, errJSONPath
		}
		stride := 1
		if params[2].known {
			if params[2].value <= 0 {
				return in, errJSONPath
			}
			stride = params[2].value
		}
		for i := start; i < end; i += stride {
			out = append(out, items[i])
		}
	}
	return out, nil
}

// eachElement calls fn with what client-go iterates in a value, until fn
// returns false: the items of an array, the values of an object ordered by
// key, or the value itself.
func eachElement(v gjson.Result, fn func(gjson.Result) bool) {
	switch {
	case v.IsArray():
		v.ForEach(func(_, item gjson.Result) bool { return fn(item) })
	case v.IsObject():
		for _, e := range sortedEntries(v) {
			if !fn(e.value) {
				return
			}
		}
	default:
		fn(v)
	}
}

type entry struct {
	key   string
	value gjson.Result
}

func sortedEntries(v gjson.Result) []entry {
	var entries []entry
	v.ForEach(func(k, val gjson.Result) bool {
		entries = append(entries, entry{k.Str, val})
		return true
	})
	slices.SortStableFunc(entries, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	return entries
}
