package schema

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// quick decides on the parsed bytes, without building Go values, whether
// a value is valid against one level of the translated schema. It answers
// yes only when the validator would: for a keyword it does not decide
// exactly (multipleOf, uniqueItems, minProperties, oneOf, not, non-string
// enums, bounds that are not integers, any keyword it does not know) it
// answers no, and Validate asks the validator, which also phrases the
// errors. allOf and anyOf are decided when their branches are: a branch
// the check accepts is valid.
//
// Why: nearly every write is valid, and for those the validator's work
// (converting the object to map[string]any, then walking it) was 22 µs of
// a 1.2 KB create, the largest single cost of the request in dynapi.
type quick struct {
	unsure     bool  // a keyword here needs the validator
	types      uint8 // allowed types (typeNull, ...); 0: any
	props      map[string]*quick
	additional *quick
	items      *quick
	required   map[string]uint // bit of each required name
	enum       map[string]bool // allowed strings; nil: no enum
	allOf      []*quick
	anyOf      []*quick
	// notNull holds the junctions of a nullable schema, which the
	// translator wraps in if {type: null} else {...}: a null skips them.
	notNull *quick

	minLength, maxLength int64 // -1: none
	minItems, maxItems   int64
	maxProperties        int64
	pattern              *regexp.Regexp
	format               func(string) bool
	// integer bounds; nil: none
	minimum, maximum, exclusiveMin, exclusiveMax *int64
}

const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeInteger
	typeNumber
	typeString
	typeArray
	typeObject
)

var typeBits = map[string]uint8{
	"null": typeNull, "boolean": typeBoolean, "integer": typeInteger, "number": typeNumber | typeInteger,
	"string": typeString, "array": typeArray, "object": typeObject,
}

// compileQuick builds the quick check of one translated schema object.
func compileQuick(m map[string]any) *quick {
	q := &quick{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, maxProperties: -1}
	for kw, v := range m {
		if !q.keyword(kw, v) {
			q.unsure = true
		}
	}
	return q
}

// keyword compiles one keyword; false when the check cannot decide it.
func (q *quick) keyword(kw string, v any) bool {
	switch kw {
	case "type":
		list, _ := v.([]string)
		for _, t := range list {
			q.types |= typeBits[t]
		}
		return len(list) > 0
	case "properties":
		props, _ := v.(map[string]any)
		q.props = make(map[string]*quick, len(props))
		for name, p := range props {
			pm, ok := p.(map[string]any)
			if !ok {
				return false
			}
			q.props[name] = compileQuick(pm)
		}
		return true
	case "additionalProperties":
		am, ok := v.(map[string]any)
		q.additional = compileQuick(am)
		return ok
	case "items":
		im, ok := v.(map[string]any)
		q.items = compileQuick(im)
		return ok
	case "required":
		list, _ := v.([]any)
		if len(list) > 64 {
			return false
		}
		q.required = make(map[string]uint, len(list))
		for _, name := range list {
			s, ok := name.(string)
			if !ok {
				return false
			}
			if _, dup := q.required[s]; !dup {
				q.required[s] = uint(len(q.required))
			}
		}
		return true
	case "enum":
		list, _ := v.([]any)
		q.enum = make(map[string]bool, len(list))
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return false
			}
			q.enum[s] = true
		}
		return true
	case "allOf", "anyOf":
		list, _ := v.([]any)
		branches := make([]*quick, 0, len(list))
		for _, b := range list {
			bm, ok := b.(map[string]any)
			if !ok {
				return false
			}
			branches = append(branches, compileQuick(bm))
		}
		if kw == "allOf" {
			q.allOf = branches
		} else {
			q.anyOf = branches
		}
		return len(branches) > 0
	case "if":
		im, _ := v.(map[string]any)
		return len(im) == 1 && im["type"] == "null"
	case "else":
		em, ok := v.(map[string]any)
		q.notNull = compileQuick(em)
		return ok
	case "minLength":
		return nonNegative(v, &q.minLength)
	case "maxLength":
		return nonNegative(v, &q.maxLength)
	case "minItems":
		return nonNegative(v, &q.minItems)
	case "maxItems":
		return nonNegative(v, &q.maxItems)
	case "maxProperties":
		return nonNegative(v, &q.maxProperties)
	case "pattern":
		s, _ := v.(string)
		re, err := regexp.Compile(s)
		q.pattern = re
		return err == nil
	case "format":
		name, _ := v.(string)
		q.format = lookupFormat(name)
		return q.format != nil
	case "minimum":
		return bound(v, &q.minimum)
	case "maximum":
		return bound(v, &q.maximum)
	case "exclusiveMinimum":
		return bound(v, &q.exclusiveMin)
	case "exclusiveMaximum":
		return bound(v, &q.exclusiveMax)
	}
	return false
}

// nonNegative reads a non-negative integer keyword.
func nonNegative(v any, out *int64) bool {
	var n int64
	if !integer(v, &n) || n < 0 {
		return false
	}
	*out = n
	return true
}

// bound reads an integer bound; fractional or huge bounds are the validator's.
func bound(v any, out **int64) bool {
	var n int64
	if !integer(v, &n) {
		return false
	}
	*out = &n
	return true
}

// integer reads a json.Number written as an int64 literal.
func integer(v any, out *int64) bool {
	num, ok := v.(json.Number)
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(string(num), 10, 64)
	*out = n
	return err == nil
}

// valid reports whether v is certainly valid; false means "ask the validator".
func (q *quick) valid(v gjson.Result) bool {
	if q == nil {
		return true
	}
	if q.unsure || !q.junctions(v) {
		return false
	}
	switch v.Type {
	case gjson.Null:
		return q.allows(typeNull) && q.enum == nil
	case gjson.True, gjson.False:
		return q.allows(typeBoolean) && q.enum == nil
	case gjson.Number:
		return q.number(v.Raw)
	case gjson.String:
		return q.allows(typeString) && q.string(v.Str)
	}
	if q.enum != nil {
		return false
	}
	if v.IsArray() {
		return q.allows(typeArray) && q.array(v)
	}
	return q.allows(typeObject) && q.object(v)
}

// junctions checks allOf, anyOf and the junctions of a nullable schema.
func (q *quick) junctions(v gjson.Result) bool {
	for _, b := range q.allOf {
		if !b.valid(v) {
			return false
		}
	}
	if len(q.anyOf) > 0 && !slices.ContainsFunc(q.anyOf, func(b *quick) bool { return b.valid(v) }) {
		return false
	}
	return v.Type == gjson.Null || q.notNull.valid(v)
}

func (q *quick) allows(t uint8) bool { return q.types == 0 || q.types&t != 0 }

// number checks a number given as its JSON text. int64 literals are
// decided against every bound. Other literals (fractions, exponents,
// huge integers) are decided only for a schema that allows every number:
// whether 1e3 is an integer, or 1.5 within a bound, is the validator's to
// judge. Why: a fraction under a plain {type: number}, as the width of a
// shape or a ratio, sent every write of such a kind to the validator.
func (q *quick) number(raw string) bool {
	if q.enum != nil {
		return false
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return q.allows(typeNumber) && q.unbounded()
	}
	if !q.allows(typeInteger) {
		return false
	}
	return (q.minimum == nil || n >= *q.minimum) && (q.maximum == nil || n <= *q.maximum) &&
		(q.exclusiveMin == nil || n > *q.exclusiveMin) && (q.exclusiveMax == nil || n < *q.exclusiveMax)
}

// unbounded reports whether q has no minimum or maximum of any kind.
func (q *quick) unbounded() bool {
	return q.minimum == nil && q.maximum == nil && q.exclusiveMin == nil && q.exclusiveMax == nil
}

func (q *quick) string(s string) bool {
	if q.enum != nil && !q.enum[s] {
		return false
	}
	if q.minLength >= 0 || q.maxLength >= 0 {
		n := int64(utf8.RuneCountInString(s))
		if n < q.minLength || q.maxLength >= 0 && n > q.maxLength {
			return false
		}
	}
	return (q.pattern == nil || q.pattern.MatchString(s)) && (q.format == nil || q.format(s))
}

func (q *quick) array(v gjson.Result) bool {
	n, ok := int64(0), true
	v.ForEach(func(_, x gjson.Result) bool {
		n++
		ok = q.items.valid(x)
		return ok
	})
	return ok && n >= q.minItems && (q.maxItems < 0 || n <= q.maxItems)
}

// object checks members, required names and maxProperties. A name given
// twice counts twice: stricter than the validator (which keeps the last),
// never more lenient.
func (q *quick) object(v gjson.Result) bool {
	var seen uint64
	n, ok := int64(0), true
	v.ForEach(func(k, x gjson.Result) bool {
		n++
		if bit, req := q.required[k.Str]; req {
			seen |= 1 << bit
		}
		if p, listed := q.props[k.Str]; listed {
			ok = p.valid(x)
		} else {
			ok = q.additional.valid(x)
		}
		return ok
	})
	return ok && seen == 1<<len(q.required)-1 && (q.maxProperties < 0 || n <= q.maxProperties)
}
