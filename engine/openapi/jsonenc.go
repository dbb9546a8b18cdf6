package openapi

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// The v2 document's JSON is written from maps of any (a kind's model is
// its schema decoded, then converted): at a thousand kinds, encoding/json
// spent most of the JSON's rendering on reflection over them. appendJSON
// writes them byte for byte as json.Marshal does, without reflection.

// appendJSON appends v to b as json.Marshal writes it. It writes itself
// what the documents are built of (maps and slices of them, strings,
// booleans, nil, whole numbers) and hands any other value to json.Marshal.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case map[string]any:
		return appendObject(b, v)
	case map[string]string:
		return appendObject(b, v)
	case []any:
		return appendArray(b, v)
	case []string:
		return appendArray(b, v)
	case string:
		return appendString(b, v), nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e21 {
			return strconv.AppendFloat(b, v, 'f', -1, 64), nil // as json.Marshal writes a whole number
		}
	case bool:
		return strconv.AppendBool(b, v), nil
	case nil:
		return append(b, "null"...), nil
	}
	out, err := json.Marshal(v)
	return append(b, out...), err
}

// appendObject appends m with its keys sorted, as json.Marshal does.
func appendObject[V any](b []byte, m map[string]V) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, key := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, key), ':')
		var err error
		if b, err = appendJSON(b, m[key]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendArray[V any](b []byte, s []V) ([]byte, error) {
	if s == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendJSON(b, v); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendString appends s quoted. A string of printable ASCII that
// json.Marshal leaves as it is (no quote, backslash, or the <, > and &
// it escapes for HTML) is copied; any other is json.Marshal's.
func appendString(b []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			out, _ := json.Marshal(s) // a string always encodes
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
