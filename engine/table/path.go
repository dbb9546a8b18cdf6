package table

import (
	"errors"

	"github.com/tidwall/gjson"
)

// errUnsupported marks a JSONPath that client-go parses but this package does
// not evaluate (recursive descent, unions, range/end, literals as steps,
// unknown filter operators). Its column is kept and its cells are null.
var errUnsupported = errors.New("unsupported jsonpath")

// stepKind is what one step of a path does to the values it is given.
type stepKind uint8

const (
	stepField    stepKind = iota // .key: the key's value in objects
	stepWildcard                 // .*: object values by key order, array items
	stepSlice                    // [i], [a:b:c], [*]: array items
	stepFilter                   // [?(...)]: the items a condition holds for
	stepLiteral                  // "text", 1, 1.5, true: only valid as a filter operand
)

// step is one parsed JSONPath node.
type step struct {
	kind    stepKind
	key     string        // stepField: the key, unescaped
	gkey    string        // stepField: key escaped for gjson
	slice   [3]sliceParam // stepSlice: start, end, step as client-go parses them
	filter  *filter       // stepFilter
	literal scalar        // stepLiteral
}

// sliceParam is client-go's ParamsEntry.
type sliceParam struct {
	value   int
	known   bool
	derived bool // the end of a plain index [i], computed as i+1
}

// isSingle reports whether a step yields at most one value from one value:
// a key, or a plain index like [2] or [-1].
func (s *step) isSingle() bool {
	return s.kind == stepField ||
		s.kind == stepSlice && s.slice[0].known && s.slice[1].derived && !s.slice[2].known
}

// path is a compiled JSONPath: a column's, or a filter operand's.
type path struct {
	steps []step
	// steps[:single] yield at most one value each; they are walked without
	// allocating, which covers most printer columns entirely.
	single int
	// unsupported paths yield no value.
	unsupported bool
}

// newPath splits steps into their single-valued prefix and the rest.
func newPath(steps []step) path {
	p := path{steps: steps}
	for p.single < len(steps) && steps[p.single].isSingle() {
		p.single++
	}
	return p
}

// compilePath parses a column's JSONPath. A syntax error is one client-go
// rejects; errUnsupported is never returned, such paths come back marked.
func compilePath(jsonPath string) (path, error) {
	steps, err := parseSteps(jsonPath)
	if errors.Is(err, errUnsupported) {
		return path{unsupported: true}, nil
	}
	if err != nil {
		return path{}, err
	}
	for _, s := range steps {
		if s.kind == stepLiteral {
			return path{unsupported: true}, nil
		}
	}
	return newPath(steps), nil
}

// topKey returns the key of a path's first step when it is a key.
func (p *path) topKey() (string, bool) {
	if p.unsupported || p.single == 0 || p.steps[0].kind != stepField {
		return "", false
	}
	return p.steps[0].key, true
}

// first returns the first value the path selects from v, skipping its first
// skip steps (already applied to v), as the tableconvertor takes
// results[0][0]. It is false when there is none or when client-go would fail
// to evaluate the path.
func (p *path) first(v gjson.Result, skip int) (gjson.Result, bool) {
	if p.unsupported {
		return gjson.Result{}, false
	}
	v, err := walk(v, p.steps[skip:p.single])
	if err != nil || !v.Exists() {
		return gjson.Result{}, false
	}
	if p.single == len(p.steps) {
		return v, true
	}
	vals, err := evalSteps([]gjson.Result{v}, p.steps[p.single:])
	if err != nil || len(vals) == 0 {
		return gjson.Result{}, false
	}
	return vals[0], true
}
