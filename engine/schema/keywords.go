package schema

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
)

// validTypes are the types a structural schema may name.
var validTypes = map[string]bool{
	"object": true, "array": true, "string": true, "integer": true, "number": true, "boolean": true,
}

// valueKeywords mean the same in OpenAPI v3.0 and JSON Schema 2020-12 and
// are handed to the validator unchanged. Annotations (description, example,
// default) and x-kubernetes-* extensions are left out.
var valueKeywords = []string{
	"maximum", "minimum", "multipleOf", "maxLength", "minLength", "pattern",
	"maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties", "required", "enum",
}

// checkedKeywords are the keywords whose values checkKeyword checks, in
// the order their problems are reported: valueKeywords and the exclusive
// bounds, as the translated document holds them.
var checkedKeywords = append(slices.Clone(valueKeywords), "exclusiveMinimum", "exclusiveMaximum")

// types returns the validator's type list, nil for any type.
func (t *translator) types(m map[string]any, path string) []string {
	if m["x-kubernetes-int-or-string"] == true {
		return []string{"integer", "string"}
	}
	raw, ok := m["type"]
	if !ok || raw == "" {
		return nil
	}
	s, ok := raw.(string)
	switch {
	case !ok:
		t.problemf(sub(path, "type"), "must be a string")
	case !validTypes[s]:
		t.problemf(sub(path, "type"), "unknown type %q", s)
	default:
		return []string{s}
	}
	return nil
}

// values copies the value validations, adapting exclusive bounds and
// format, and checks pattern, which the validator would panic on.
func (t *translator) values(m map[string]any, path string) map[string]any {
	out := make(map[string]any)
	for _, kw := range valueKeywords {
		if v, ok := m[kw]; ok {
			out[kw] = v
		}
	}
	exclusive(m, out, "exclusiveMinimum", "minimum")
	exclusive(m, out, "exclusiveMaximum", "maximum")
	for _, kw := range checkedKeywords {
		if v, ok := out[kw]; ok {
			t.checkKeyword(sub(path, kw), kw, v)
		}
	}
	if raw, ok := out["pattern"]; ok {
		if reason := patternProblem(raw); reason != "" {
			t.problemf(sub(path, "pattern"), "%s", reason)
			delete(out, "pattern")
		}
	}
	if name, _ := m["format"].(string); lookupFormat(name) != nil {
		out["format"] = name
		t.formats[name] = formatChecker(lookupFormat(name))
	}
	return out
}

// exclusive turns OpenAPI v3.0's exclusive flag on a bound into JSON Schema
// 2020-12's exclusive bound.
func exclusive(m, out map[string]any, flag, bound string) {
	switch v := m[flag].(type) {
	case bool:
		if b, ok := out[bound]; ok && v {
			out[flag] = b
			delete(out, bound)
		}
	case json.Number:
		out[flag] = v
	}
}

// junctors translates allOf, anyOf, oneOf and not, whose subschemas only
// validate.
func (t *translator) junctors(m, out map[string]any, path string, nullable bool) {
	j := make(map[string]any)
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		raw, ok := m[kw]
		if !ok || (kw == "anyOf" && isIntOrStringAnyOf(m)) {
			continue
		}
		list, ok := raw.([]any)
		if !ok {
			t.problemf(sub(path, kw), "must be a list of schemas")
			continue
		}
		if len(list) == 0 {
			t.problemf(sub(path, kw), "minimum 1 items required, but found 0 items")
		}
		translated := make([]any, len(list))
		for i, s := range list {
			translated[i], _ = t.translate(s, sub(path, kw)+"["+strconv.Itoa(i)+"]", "", false)
		}
		j[kw] = translated
	}
	if raw, ok := m["not"]; ok {
		j["not"], _ = t.translate(raw, sub(path, "not"), "", false)
	}
	if len(j) == 0 {
		return
	}
	if !nullable {
		maps.Copy(out, j)
		return
	}
	// Why: kube-apiserver checks only type and enum on a null, so a nullable
	// field's null must skip allOf/anyOf/oneOf/not.
	out["if"] = map[string]any{"type": "null"}
	out["else"] = j
}

// isIntOrStringAnyOf reports the anyOf that CRDs write beside
// x-kubernetes-int-or-string: [{type: integer}, {type: string}]. It says no
// more than the type list, and dropping it spares the validator a failing
// branch for every string value.
func isIntOrStringAnyOf(m map[string]any) bool {
	list, _ := m["anyOf"].([]any)
	if m["x-kubernetes-int-or-string"] != true || len(list) != 2 {
		return false
	}
	seen := map[any]bool{}
	for _, branch := range list {
		b, _ := branch.(map[string]any)
		if len(b) != 1 {
			return false
		}
		seen[b["type"]] = true
	}
	return seen["integer"] && seen["string"]
}

// patternProblem says what is wrong with a pattern, "" if nothing is.
// kube-apiserver, like jsonschema, uses Go's regexp syntax.
func patternProblem(raw any) string {
	p, ok := raw.(string)
	if !ok {
		return "must be a string"
	}
	if _, err := regexp.Compile(p); err != nil {
		return "must be a valid regular expression: " + err.Error()
	}
	return ""
}
