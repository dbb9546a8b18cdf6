package table

import (
	"strconv"
	"time"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/util/duration"
)

// appendCell appends the JSON of one cell: the tableconvertor's rendering of
// the first value the column's path selects, or null when there is none.
func appendCell(dst []byte, colType string, v gjson.Result, found bool, now time.Time) []byte {
	switch {
	case !found:
		return append(dst, "null"...)
	case colType == "string":
		return appendStringCell(dst, v)
	case v.Type == gjson.Null:
		return append(dst, "null"...)
	}
	switch colType {
	case "integer":
		if v.Type == gjson.Number {
			return strconv.AppendInt(dst, integer(v), 10)
		}
	case "number":
		if v.Type == gjson.Number {
			return appendFloat(dst, v.Num)
		}
	case "boolean":
		if v.Type == gjson.True || v.Type == gjson.False {
			return append(dst, v.Raw...)
		}
	case "date":
		if v.Type == gjson.String {
			return gjson.AppendJSONString(dst, age(v.Str, now))
		}
	}
	return append(dst, "null"...)
}

// integer is cellForJSONValue's int64: integers as they are, other numbers
// truncated (int64(float64) in Go).
func integer(v gjson.Result) int64 {
	if i, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
		return i
	}
	return int64(v.Num)
}

// appendStringCell renders any value for a string column, as client-go's
// JSONPath prints it: strings as they are, numbers and booleans with fmt,
// objects and arrays as compact JSON, and null as "<no value>" (text/template's
// rendering of a nil interface).
func appendStringCell(dst []byte, v gjson.Result) []byte {
	switch v.Type {
	case gjson.String:
		return append(dst, v.Raw...) // already a JSON string
	case gjson.Null:
		return gjson.AppendJSONString(dst, "<no value>")
	case gjson.True, gjson.False:
		return gjson.AppendJSONString(dst, v.Raw)
	case gjson.Number:
		return gjson.AppendJSONString(dst, formatNumber(v))
	}
	text, err := canonicalJSON(v.Raw)
	if err != nil {
		return append(dst, "null"...) // unreachable for validated objects
	}
	return gjson.AppendJSONString(dst, text)
}

// age renders a date cell as metav1.Time's query-parameter parsing and
// ConvertToHumanReadableDateType do.
func age(s string, now time.Time) string {
	if s == "" || s == "null" {
		return "<unknown>"
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return "<invalid>"
	}
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}
