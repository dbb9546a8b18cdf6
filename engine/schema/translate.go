package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// translator walks a decoded openAPIV3Schema once and produces the JSON
// Schema 2020-12 document the validator compiles, the structural tree, and
// every problem found, each named by its schema path.
type translator struct {
	problems []string
	formats  map[string]func(any) bool // formats used, by their spelling in the schema
	rules    []RuleSet
	defaults []pendingDefault // in document order: parents before children
}

// pendingDefault is a default waiting for the compiled validator to check it.
type pendingDefault struct {
	node  *node
	path  string // schema path of the node
	ptr   string // URL fragment of the node in the translated document
	value any
}

func (t *translator) problemf(path, format string, args ...any) {
	t.problems = append(t.problems, path+": "+fmt.Sprintf(format, args...))
}

// translate converts one schema object. structural is false inside
// allOf/anyOf/oneOf/not, whose subschemas only validate: no node, no default.
func (t *translator) translate(in any, path, ptr string, structural bool) (map[string]any, *node) {
	m, ok := in.(map[string]any)
	if !ok {
		t.problemf(path, "must be a schema object")
		return map[string]any{}, nil
	}
	nullable := m["nullable"] == true
	out := t.values(m, path)
	if types := t.types(m, path); types != nil {
		if nullable {
			types = append(types, "null")
		}
		out["type"] = types
	}
	if rules, ok := m["x-kubernetes-validations"]; ok {
		t.rules = append(t.rules, RuleSet{SchemaPath: path, Rules: marshal(rules)})
	}
	var n *node
	if structural {
		n = &node{
			preserve: m["x-kubernetes-preserve-unknown-fields"] == true,
			embedded: m["x-kubernetes-embedded-resource"] == true,
			nullable: nullable,
		}
		t.pendDefault(m, n, path, ptr)
	}
	t.properties(m, out, n, path, ptr, structural)
	t.items(m, out, n, path, ptr, structural)
	t.additional(m, out, n, path, ptr, structural)
	t.junctors(m, out, path, nullable)
	return out, n
}

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
	if raw, ok := out["pattern"]; ok {
		p, isString := raw.(string)
		if _, err := regexp.Compile(p); !isString || err != nil {
			t.problemf(sub(path, "pattern"), "must be a valid regular expression: %s", describeErr(err))
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

// pendDefault records the default of a structural node for Compile to check.
// The root's default would never apply, and a null default is no default.
func (t *translator) pendDefault(m map[string]any, n *node, path, ptr string) {
	if def := m["default"]; def != nil && path != "" {
		t.defaults = append(t.defaults, pendingDefault{node: n, path: path, ptr: ptr, value: def})
	}
}

func (t *translator) properties(m, out map[string]any, n *node, path, ptr string, structural bool) {
	raw, ok := m["properties"]
	if !ok {
		return
	}
	props, ok := raw.(map[string]any)
	if !ok {
		t.problemf(sub(path, "properties"), "must be an object")
		return
	}
	translated := make(map[string]any, len(props))
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, c := t.translate(props[name], joinKey(sub(path, "properties"), name), ptr+"/properties/"+fragment(name), structural)
		translated[name] = p
		if n != nil && c != nil {
			if n.props == nil {
				n.props = make(map[string]*node, len(props))
			}
			n.props[name] = c
			n.names = append(n.names, name)
		}
	}
	out["properties"] = translated
}

func (t *translator) items(m, out map[string]any, n *node, path, ptr string, structural bool) {
	raw, ok := m["items"]
	if !ok {
		return
	}
	if _, isList := raw.([]any); isList {
		t.problemf(sub(path, "items"), "must be a schema object, not an array")
		return
	}
	var c *node
	out["items"], c = t.translate(raw, sub(path, "items"), ptr+"/items", structural)
	if n != nil {
		n.items = c
	}
}

func (t *translator) additional(m, out map[string]any, n *node, path, ptr string, structural bool) {
	raw, ok := m["additionalProperties"]
	if !ok {
		return
	}
	if allow, isBool := raw.(bool); isBool {
		// Why no validator keyword: true is JSON Schema's default, and false
		// would reject the apiVersion, kind and metadata kept at the root and
		// in embedded resources; pruning drops whatever false forbids.
		if allow && n != nil {
			n.additional = &node{preserve: true}
		}
		return
	}
	if props, _ := m["properties"].(map[string]any); len(props) > 0 {
		t.problemf(sub(path, "additionalProperties"), "additionalProperties and properties are mutually exclusive")
		return
	}
	var c *node
	out["additionalProperties"], c = t.translate(raw, sub(path, "additionalProperties"), ptr+"/additionalProperties", structural)
	if n != nil {
		n.additional = c
	}
}

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

// sub appends a keyword to a schema path.
func sub(path, keyword string) string {
	if path == "" {
		return keyword
	}
	return path + "." + keyword
}

// describeErr renders a possibly nil error for a problem message.
func describeErr(err error) string {
	if err == nil {
		return "not a string"
	}
	return err.Error()
}

// marshal encodes a value decoded from JSON, which cannot fail. It leaves
// <, > and & alone: rules and defaults read as written.
func marshal(v any) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
