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
	path    path
	literal *scalar
}

// knownOperator reports whether client-go's evalOperator knows op.
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
	var err error
	for _, v := range in {
		eachElement(v, func(item gjson.Result) bool {
			var keep bool
			if keep, err = f.holds(item); keep {
				out = append(out, item)
			}
			return err == nil
		})
		if err != nil {
			return in, err
		}
	}
	return out, nil
}

// holds evaluates the condition on one item.
func (f *filter) holds(item gjson.Result) (bool, error) {
	// With missing keys allowed, client-go ignores a failure on the left and
	// compares what the failing step was given.
	nLeft, left, _ := f.left.eval(item)
	nRight, right, err := f.right.eval(item)
	switch {
	case err != nil:
		return false, err
	case nLeft == 0:
		return false, nil
	case nLeft > 1:
		return false, errJSONPath // "can only compare one element at a time"
	case f.op == "exists":
		return true, nil
	case nRight == 0:
		return false, nil
	case nRight > 1:
		return false, errJSONPath
	}
	return compare(f.op, left, right), nil
}

// eval returns how many values the operand has for one item, and the first.
func (o *operand) eval(item gjson.Result) (int, scalar, error) {
	if o.literal != nil {
		return 1, *o.literal, nil
	}
	if o.path.single == len(o.path.steps) {
		v, err := walk(item, o.path.steps)
		if !v.Exists() {
			return 0, scalar{}, err
		}
		return 1, scalarOf(v), err
	}
	vals, err := evalSteps([]gjson.Result{item}, o.path.steps)
	if len(vals) == 0 {
		return 0, scalar{}, err
	}
	return len(vals), scalarOf(vals[0]), err
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
// (So not jsoneq's meaning of equal, where 1 and 1.0 are the same number:
// a filter answers as kubectl would.)
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
