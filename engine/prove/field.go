package prove

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// parseField reads a field path as Kubernetes writes it ("spec.items[2].bar",
// "metadata.labels[app.kubernetes.io/name]") into its object keys (list
// indexes left out, as rules address lists whole) and a gjson path.
func parseField(field string) (keys []string, get string) {
	var parts []string
	for field != "" {
		var key string
		index := false
		switch {
		case field[0] == '[':
			end := strings.IndexByte(field, ']')
			if end < 0 {
				end = len(field) - 1
			}
			key, field = field[1:end], field[end+1:]
			index = key != "" && strings.Trim(key, "0123456789") == ""
		default:
			end := strings.IndexAny(field, ".[")
			if end < 0 {
				end = len(field)
			}
			key, field = field[:end], field[end:]
		}
		field = strings.TrimPrefix(field, ".")
		parts = append(parts, gjson.Escape(key))
		if !index {
			keys = append(keys, key)
		}
	}
	return keys, strings.Join(parts, ".")
}

// fieldPath writes keys as Kubernetes writes a field path, a key that
// holds a dot in brackets.
func fieldPath(keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, ".[]") {
			b.WriteString("[" + k + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(k)
	}
	return b.String()
}

// dropEmpty removes the empty objects of a document, but for the document
// itself, recursively: rules remove the objects they empty, and a schema
// prunes an empty object it has no field for, so {} means absent here.
func dropEmpty(doc []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return doc
	}
	dropIn(v)
	out, err := json.Marshal(v)
	if err != nil {
		return doc
	}
	return out
}

// dropIn removes the empty objects under v, and reports whether v is one.
func dropIn(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			if dropIn(c) {
				delete(v, k)
			}
		}
		return len(v) == 0
	case []any:
		for _, c := range v {
			dropIn(c)
		}
	}
	return false
}
