package convert

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The scalar types coerce converts between, as JSON Schema names them.
const (
	typeString  = "string"
	typeInteger = "integer"
	typeNumber  = "number"
	typeBoolean = "boolean"
)

func isScalarType(t string) bool {
	switch t {
	case typeString, typeInteger, typeNumber, typeBoolean:
		return true
	}
	return false
}

// coerce converts the scalar at path to another type. from is the type it
// had, which the way back returns to; Bind reads it from the schema when
// the file leaves it out, and an unknown from makes the way back leave the
// value alone. A value that cannot be converted ("abc" to an integer)
// stays as it is, for the target's validation to report.
type coerce struct {
	path     path
	to, from string
}

func (r coerce) apply(d doc) {
	v := d.value(r.path)
	if !v.Exists() {
		return
	}
	if raw, ok := coerceValue(v, r.to); ok && raw != v.Raw {
		d.putRaw(r.path, raw)
	}
}

func (r coerce) inverse() rule { return coerce{path: r.path, to: r.from, from: r.to} }
func (r coerce) uses() []use   { return []use{inPlace("path", r.path)} }
func (r coerce) String() string {
	if r.from == "" {
		return flow("coerce", "path", r.path.text, "to", r.to)
	}
	return flow("coerce", "path", r.path.text, "to", r.to, "from", r.from)
}

// bind fills from with the type of path in the source schema.
func (r coerce) bind(b *binding) (rule, string) {
	t, known := b.srcType(r.path)
	switch {
	case r.from != "":
		return r, ""
	case !known || t == "":
		return nil, "cannot tell the type of " + r.path.text + " in " + b.srcName + ": write from: string, integer, number or boolean"
	case !isScalarType(t):
		return nil, r.path.text + " is of type " + t + " in " + b.srcName + ": only strings, integers, numbers and booleans can be coerced"
	}
	r.from = t
	return r, ""
}

// coerceValue returns the JSON of v as type to, or ok false when v has no
// such form. Numbers keep their text when they can, so that a string
// "2.50" becomes 2.50 and back "2.50".
func coerceValue(v gjson.Result, to string) (string, bool) {
	switch v.Type {
	case gjson.String:
		return fromString(v.Str, to)
	case gjson.Number:
		return fromNumber(v.Raw, v.Float(), to)
	case gjson.True, gjson.False:
		return fromBool(v.Type == gjson.True, to)
	}
	return "", false
}

func fromString(s, to string) (string, bool) {
	switch to {
	case typeString:
		return jsonString(s), true
	case typeBoolean:
		if s == "true" || s == "false" {
			return s, true
		}
	case typeInteger, typeNumber:
		if !isJSONNumber(s) {
			return "", false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "", false
		}
		return fromNumber(s, f, to)
	}
	return "", false
}

// fromNumber converts a number; a fraction rounds to the nearest integer.
func fromNumber(raw string, f float64, to string) (string, bool) {
	switch to {
	case typeString:
		return jsonString(raw), true
	case typeBoolean:
		return strconv.FormatBool(f != 0), true
	case typeInteger:
		if !strings.ContainsAny(raw, ".eE") {
			return raw, true
		}
		return strconv.FormatFloat(math.Round(f), 'f', -1, 64), true
	case typeNumber:
		return raw, true
	}
	return "", false
}

func fromBool(b bool, to string) (string, bool) {
	switch to {
	case typeString:
		return jsonString(strconv.FormatBool(b)), true
	case typeBoolean:
		return strconv.FormatBool(b), true
	case typeInteger, typeNumber:
		if b {
			return "1", true
		}
		return "0", true
	}
	return "", false
}

// jsonString encodes s as a JSON string.
func jsonString(s string) string { return string(gjson.AppendJSONString(nil, s)) }

// isJSONNumber reports whether s is written as a JSON number.
func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && json.Valid([]byte(s))
}
