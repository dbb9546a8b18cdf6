package openapi

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/dynapi/dynapi/internal/json/jsonscan"
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
		return jsonscan.AppendQuoted(b, v), nil
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
		b = append(jsonscan.AppendQuoted(b, key), ':')
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
