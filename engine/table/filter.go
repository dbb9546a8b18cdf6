package table

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// filter is a [?(...)] step.
type filter struct {
	left, right operand
	op          string // exists, ==, !=, <, <=, >, >=
}

// operand is one side of a filter: a path from the item, or a literal.
type operand struct {
	steps   []step
	literal *scalar
}

func knownOperator(op string) bool {
	switch op {
	case "exists", "==", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// apply keeps the items of each value the condition holds for, as
// client-go's evalFilter.
func (f *filter) apply(in []gjson.Result) ([]gjson.Result, error) {
	var out []gjson.Result
	for _, v := range in {
		for _, item := range elements(v) {
			// With missing keys allowed, client-go ignores a failure on the
			// left and compares whatever the failing step returned.
			lefts, _ := f.left.eval(item)
			rights, err := f.right.eval(item)
			if err != nil {
				return in, err
			}
			switch {
			case len(lefts) == 0:
				continue
			case len(lefts) > 1:
				return in, errJSONPath // "can only compare one element at a time"
			case f.op == "exists":
				out = append(out, item)
				continue
			case len(rights) == 0:
				continue
			case len(rights) > 1:
				return in, errJSONPath
			}
			if compare(f.op, lefts[0], rights[0]) {
				out = append(out, item)
			}
		}
	}
	return out, nil
}

// eval returns the operand's values for one item.
func (o *operand) eval(item gjson.Result) ([]scalar, error) {
	if o.literal != nil {
		return []scalar{*o.literal}, nil
	}
	vals, err := evalSteps([]gjson.Result{item}, o.steps)
	out := make([]scalar, len(vals))
	for i, v := range vals {
		out[i] = scalarOf(v)
	}
	return out, err
}

// scalarKind is the class of a value in text/template's comparisons, which
// client-go's filters use.
type scalarKind uint8

const (
	kindInvalid scalarKind = iota // null, objects and arrays: never comparable
	kindBool
	kindInt // a JSON integer that fits int64, as Kubernetes decodes it
	kindFloat
	kindString
)

// scalar is a comparable value.
type scalar struct {
	kind scalarKind
	b    bool
	i    int64
	f    float64
	s    string
}

// scalarOf classifies a JSON value as Kubernetes' unstructured decoding
// types it: int64 when the number is an integer that fits, float64 otherwise.
func scalarOf(v gjson.Result) scalar {
	switch v.Type {
	case gjson.String:
		return scalar{kind: kindString, s: v.Str}
	case gjson.True, gjson.False:
		return scalar{kind: kindBool, b: v.Type == gjson.True}
	case gjson.Number:
		if i, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
			return scalar{kind: kindInt, i: i}
		}
		return scalar{kind: kindFloat, f: v.Num}
	}
	return scalar{}
}

// compare is client-go's evalOperator. text/template refuses to compare
// values of different kinds, and client-go ignores that refusal: such a
// comparison is false, except != which is then true. Because literal numbers
// are floats, they never equal an integer field.
func compare(op string, a, b scalar) bool {
	comparable := a.kind != kindInvalid && a.kind == b.kind
	ordered := comparable && a.kind != kindBool
	switch op {
	case "==":
		return comparable && equal(a, b)
	case "!=":
		return !(comparable && equal(a, b))
	case "<":
		return ordered && less(a, b)
	case "<=":
		return ordered && (less(a, b) || equal(a, b))
	case ">":
		return ordered && !less(a, b) && !equal(a, b)
	case ">=":
		return ordered && !less(a, b)
	}
	return false
}

func equal(a, b scalar) bool {
	return a.b == b.b && a.i == b.i && a.f == b.f && a.s == b.s
}

func less(a, b scalar) bool {
	switch a.kind {
	case kindInt:
		return a.i < b.i
	case kindFloat:
		return a.f < b.f
	}
	return a.s < b.s
}
