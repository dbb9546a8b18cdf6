package schema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/tidwall/gjson"
)

// causeTooMany is Kubernetes' FieldValueTooMany, which engine does not name.
const causeTooMany = "FieldValueTooMany"

// describe phrases one failed keyword the way kube-apiserver (kube-openapi
// errors turned into field errors) does; bound is the keyword's value in the
// schema and value the offending value. It returns "" for a keyword
// kube-apiserver has no phrase for.
func describe(keyword string, bound, value gjson.Result, path string) (causeType, message string) {
	in := path + " in body "
	switch keyword {
	case "type":
		actual := strconv.Quote(jsonType(value))
		return engine.CauseTypeInvalid, invalid(actual, in+"must be of type "+typeNames(bound)+": "+actual)
	case "format":
		return engine.CauseTypeInvalid, invalid(badValue(value), in+"must be of type "+bound.Str+": "+badValue(value))
	case "enum":
		return engine.CauseNotSupported, "Unsupported value: " + badValue(value) + ": supported values: " + supported(bound)
	case "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf":
		return engine.CauseInvalid, invalid(badValue(value), in+numberRules[keyword]+number(bound))
	case "minLength":
		return engine.CauseInvalid, invalid(badValue(value), fmt.Sprintf("%sshould be at least %d chars long", in, bound.Int()))
	case "maxLength":
		return engine.CauseTooLong, "Too long: may not be more than " + plural(bound.Int(), "byte")
	case "pattern":
		return engine.CauseInvalid, invalid(badValue(value), in+"should match '"+bound.Str+"'")
	case "minItems":
		return engine.CauseInvalid, invalid(count(value), fmt.Sprintf("%sshould have at least %d items", in, bound.Int()))
	case "minProperties":
		return engine.CauseInvalid, invalid(count(value), fmt.Sprintf("%sshould have at least %d properties", in, bound.Int()))
	case "maxItems", "maxProperties":
		// kube-apiserver says "items" for properties too.
		return causeTooMany, "Too many: " + count(value) + ": must have at most " + plural(bound.Int(), "item")
	case "uniqueItems":
		return engine.CauseInvalid, invalid(`""`, in+"shouldn't contain duplicates")
	case "not":
		return engine.CauseInvalid, invalid(`""`, strconv.Quote(path)+" must not validate the schema (not)")
	}
	return "", ""
}

var numberRules = map[string]string{
	"minimum":          "should be greater than or equal to ",
	"exclusiveMinimum": "should be greater than ",
	"maximum":          "should be less than or equal to ",
	"exclusiveMaximum": "should be less than ",
	"multipleOf":       "should be a multiple of ",
}

// invalid is the body of a FieldValueInvalid error.
func invalid(value, detail string) string {
	return "Invalid value: " + value + ": " + detail
}

// badValue renders a value as Kubernetes field errors do: numbers and
// booleans bare, strings quoted, anything else as JSON with sorted keys.
func badValue(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return strconv.Quote(v.Str)
	case gjson.Number:
		return number(v)
	case gjson.True, gjson.False, gjson.Null:
		return v.Raw
	}
	decoded, err := decodeJSON([]byte(v.Raw))
	if err != nil {
		return v.Raw
	}
	return string(marshal(decoded))
}

// number renders a number as kube-apiserver does: an int64 as an integer,
// anything else as a float64.
func number(v gjson.Result) string {
	if _, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
		return v.Raw
	}
	return fmt.Sprint(v.Float())
}

// jsonType names a value's type as kube-apiserver does: a number is an
// integer when it decodes to an int64.
func jsonType(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return "string"
	case gjson.Number:
		if _, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
			return "integer"
		}
		return "number"
	case gjson.True, gjson.False:
		return "boolean"
	case gjson.Null:
		return "null"
	}
	if v.IsArray() {
		return "array"
	}
	return "object"
}

// typeNames renders a type list without the null that nullable adds.
func typeNames(types gjson.Result) string {
	var names []string
	for _, t := range types.Array() {
		if t.Str != "null" {
			names = append(names, t.Str)
		}
	}
	return strings.Join(names, ",")
}

// supported renders enum values as Kubernetes' NotSupported does.
func supported(enum gjson.Result) string {
	var values []string
	for _, v := range enum.Array() {
		s := v.Raw
		if v.Type == gjson.String {
			s = v.Str
		}
		values = append(values, strconv.Quote(s))
	}
	return strings.Join(values, ", ")
}

// count renders the number of items or properties of a value.
func count(v gjson.Result) string {
	n := 0
	v.ForEach(func(_, _ gjson.Result) bool { n++; return true })
	return strconv.Itoa(n)
}

// plural renders "1 item", "2 items".
func plural(n int64, unit string) string {
	if n != 1 {
		unit += "s"
	}
	return strconv.FormatInt(n, 10) + " " + unit
}
