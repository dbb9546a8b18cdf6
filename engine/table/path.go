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

// path is a compiled printer column path.
type path struct {
	steps []step
	// single is set when every step yields at most one value from one value
	// (keys and plain indexes), which lets the common case walk without
	// allocating.
	single bool
	// unsupported paths yield no value.
	unsupported bool
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
	p := path{steps: steps, single: true}
	for _, s := range steps {
		switch {
		case s.kind == stepLiteral:
			return path{unsupported: true}, nil
		case s.kind == stepSlice && !s.isIndex(), s.kind == stepWildcard, s.kind == stepFilter:
			p.single = false
		}
	}
	return p, nil
}

// isIndex reports whether a slice step is a plain index like [2] or [-1].
func (s *step) isIndex() bool {
	return s.slice[0].known && s.slice[1].derived && !s.slice[2].known
}

// first returns the first value the path selects in root, as the
// tableconvertor takes results[0][0]; false when there is none or client-go
// would fail to evaluate the path.
func (p *path) first(root gjson.Result) (gjson.Result, bool) {
	if p.unsupported {
		return gjson.Result{}, false
	}
	if p.single {
		return p.walk(root)
	}
	vals, err := evalSteps([]gjson.Result{root}, p.steps)
	if err != nil || len(vals) == 0 {
		return gjson.Result{}, false
	}
	return vals[0], true
}

// walk follows a path of keys and plain indexes from one value.
func (p *path) walk(v gjson.Result) (gjson.Result, bool) {
	for i := range p.steps {
		s := &p.steps[i]
		if s.kind == stepField {
			v = field(v, s)
		} else {
			v = index(v, s.slice[0].value)
		}
		if !v.Exists() {
			return v, false
		}
	}
	return v, true
}

// field looks a key up in an object; anything else has no keys.
func field(v gjson.Result, s *step) gjson.Result {
	if !v.IsObject() {
		return gjson.Result{}
	}
	if s.key == "" {
		// gjson cannot address the empty key.
		var out gjson.Result
		v.ForEach(func(k, val gjson.Result) bool {
			if k.Str == "" {
				out = val
				return false
			}
			return true
		})
		return out
	}
	return v.Get(s.gkey)
}

// index returns item i of an array, counting from the end when negative.
// Out of range and non-arrays are client-go errors; both leave the cell null.
func index(v gjson.Result, i int) gjson.Result {
	if !v.IsArray() {
		return gjson.Result{}
	}
	if i < 0 {
		i += arrayLen(v)
	}
	n := 0
	var out gjson.Result
	v.ForEach(func(_, item gjson.Result) bool {
		if n == i {
			out = item
			return false
		}
		n++
		return true
	})
	return out
}

func arrayLen(v gjson.Result) int {
	n := 0
	v.ForEach(func(_, _ gjson.Result) bool {
		n++
		return true
	})
	return n
}
