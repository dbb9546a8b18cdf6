package schema

import (
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"
)

// thinner builds the Go value the validator gets without what cannot
// change its answer short of MaxCauses, so that the memory a validation
// takes is bounded by the object's problems, not its size. Why: the
// schema library cannot stop early, and works per value: it built one
// error (a few hundred bytes) per wrong value, 1.3 GB for a 3 MiB list of
// 1.5 million wrong items, and allocates about a hundred bytes per item
// of a valid list.
//
// Values the quick check vouches for are left out of lists and objects
// (they cost no error), but never what the schema around them needs to
// stay as valid as the whole: required members, the first minItems
// items, and nothing from a list or object over its maxItems or
// maxProperties. Once the budget of values it cannot vouch for is spent
// (MaxCauses+1 of them, the ones holding the problems), the rest of a
// list and such members of objects are cut. Below anything the check
// does not decide (a junction, a keyword it does not know, such as
// uniqueItems or minProperties), nothing is left out. Lists keep their
// items' order; restore gives the errors the indices of the whole list.
type thinner struct {
	budget int  // values left that the quick check cannot vouch for (innermost ones)
	cut    bool // values it cannot vouch for were left out
	// indices holds, for each list with items left out (by its path in
	// the thinned value, tokens joined by NUL, which no key holds), the
	// index in the whole list of each item kept.
	indices map[string][]int
}

// newThinner returns a thinner with a budget of budget values the quick
// check cannot vouch for; -1: no budget (only vouched values are left out).
func newThinner(budget int) *thinner {
	return &thinner{budget: budget, indices: map[string][]int{}}
}

// value is goValue(v) thinned; q checks v's schema, path is v's.
func (t *thinner) value(v gjson.Result, q *quick, path []string) any {
	q = shape(q)
	switch {
	case q == nil:
		return goValue(v)
	case v.IsArray():
		return t.array(v, q, path)
	case v.IsObject():
		return t.object(v, q, path)
	}
	return goValue(v)
}

func (t *thinner) array(v gjson.Result, q *quick, path []string) any {
	n := int64(0)
	v.ForEach(func(_, _ gjson.Result) bool { n++; return true })
	compact := q.maxItems < 0 || n <= q.maxItems
	list, index := []any{}, []int{}
	i := -1
	v.ForEach(func(_, x gjson.Result) bool {
		i++
		kept := int64(len(list)) < q.minItems
		switch {
		case q.items.valid(x):
			if compact && !kept {
				return true
			}
			list = append(list, goValue(x))
		case t.budget == 0 && !kept:
			t.cut = true
			return false
		default:
			list = append(list, t.unvouched(x, q.items, append(path, strconv.Itoa(len(list)))))
		}
		index = append(index, i)
		return true
	})
	if len(index) < i+1 {
		t.indices[strings.Join(path, "\x00")] = index
	}
	return list
}

func (t *thinner) object(v gjson.Result, q *quick, path []string) any {
	n := int64(0)
	v.ForEach(func(_, _ gjson.Result) bool { n++; return true })
	compact := q.maxProperties < 0 || n <= q.maxProperties
	m := make(map[string]any)
	v.ForEach(func(k, x gjson.Result) bool {
		sub, listed := q.props[k.Str]
		if !listed {
			sub = q.additional
		}
		_, required := q.required[k.Str]
		switch {
		case sub.valid(x):
			if !compact || required {
				m[k.Str] = goValue(x)
			}
		case t.budget == 0 && !required:
			t.cut = true
		default:
			m[k.Str] = t.unvouched(x, sub, append(path, k.Str))
		}
		return true
	})
	return m
}

// unvouched is value(x, q, path) for an x the quick check does not vouch
// for: it costs one of the budget, unless values inside it already did
// (the problems are there, and counting their ancestors too would cut
// lists short of MaxCauses problems).
func (t *thinner) unvouched(x gjson.Result, q *quick, path []string) any {
	before := t.budget
	v := t.value(x, q, path)
	if t.budget == before && t.budget > 0 {
		t.budget--
	}
	return v
}

// shape is the check whose items, properties and additionalProperties
// describe a value of q's schema, or nil when leaving values out below it
// could change what the validator finds.
func shape(q *quick) *quick {
	switch {
	case q == nil || q.unsure || len(q.allOf) > 0 || len(q.anyOf) > 0:
		return nil
	case q.notNull != nil:
		if q.items != nil || q.props != nil || q.additional != nil {
			return nil
		}
		return shape(q.notNull)
	}
	return q
}

// restore gives every error of ve the location of its value in the whole
// object, where list items were left out.
func (t *thinner) restore(ve *jsonschema.ValidationError) {
	if len(t.indices) > 0 {
		ve.InstanceLocation = t.whole(ve.InstanceLocation)
	}
	for _, c := range ve.Causes {
		t.restore(c)
	}
}

// whole is the JSON pointer ptr of the thinned value in the whole one.
func (t *thinner) whole(ptr string) string {
	raw := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	tokens := pointerTokens(ptr)
	for i := range tokens {
		index, ok := t.indices[strings.Join(tokens[:i], "\x00")]
		if !ok {
			continue
		}
		if j, err := strconv.Atoi(tokens[i]); err == nil && j < len(index) {
			raw[i] = strconv.Itoa(index[j])
		}
	}
	if ptr == "" {
		return ""
	}
	return "/" + strings.Join(raw, "/")
}
