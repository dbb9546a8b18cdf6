package postgres

import (
	"github.com/tidwall/gjson"
)

// fromJSONB turns jsonb's text output into the body clients expect. jsonb
// stores keys sorted by length and prints a space after every ':' and ',',
// so a stored object would come back as {"kind": ..., "spec": ...,
// "apiVersion": ...}. This compacts it and puts apiVersion, kind and
// metadata first, as Kubernetes writes objects; the rest keeps its order.
func fromJSONB(text []byte) []byte {
	compact := compactJSONB(text)
	root := gjson.ParseBytes(compact)
	if !root.IsObject() {
		return compact
	}
	out := make([]byte, 0, len(compact))
	out = append(out, '{')
	for _, key := range []string{"apiVersion", "kind", "metadata"} {
		if v := root.Get(key); v.Exists() {
			out = appendMember(out, `"`+key+`"`, v.Raw)
		}
	}
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "apiVersion", "kind", "metadata":
		default:
			out = appendMember(out, k.Raw, v.Raw)
		}
		return true
	})
	return append(out, '}')
}

func appendMember(out []byte, key, value string) []byte {
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(out, key...)
	out = append(out, ':')
	return append(out, value...)
}

// compactJSONB drops the whitespace jsonb's output puts between tokens. It
// relies on that output being valid JSON: whitespace occurs only outside
// strings, and a string's quotes are found by skipping escaped characters.
func compactJSONB(text []byte) []byte {
	out := make([]byte, 0, len(text))
	inString := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString && c == '\\' && i+1 < len(text):
			out = append(out, c, text[i+1])
			i++
			continue
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			continue
		}
		out = append(out, c)
	}
	return out
}
