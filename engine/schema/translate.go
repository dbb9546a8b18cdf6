package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// translator walks a decoded openAPIV3Schema once and produces the JSON
// Schema 2020-12 document the validator compiles, the structural tree, and
// every problem found, each named by its schema path.
type translator struct {
	problems []string
	formats  map[string]func(any) bool // formats used, by their spelling in the schema
	rules    []RuleSet
	defaults []pendingDefault // in document order: parents before children
}

// newTranslator returns a translator ready for one schema.
func newTranslator() *translator {
	return &translator{formats: make(map[string]func(any) bool)}
}

// pendingDefault is a default waiting to be checked against its schema.
type pendingDefault struct {
	node   *node
	path   string         // schema path of the node
	ptr    string         // URL fragment of the node in the translated document
	schema map[string]any // the node in the translated document
	value  any
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
		t.pendDefault(m, out, n, path, ptr)
	}
	t.properties(m, out, n, path, ptr, structural)
	t.items(m, out, n, path, ptr, structural)
	t.additional(m, out, n, path, ptr, structural)
	t.junctors(m, out, path, nullable)
	return out, n
}

// pendDefault records the default of a structural node for Compile to check.
// The root's default would never apply, and a null default is no default.
func (t *translator) pendDefault(m, out map[string]any, n *node, path, ptr string) {
	if def := m["default"]; def != nil && path != "" {
		t.defaults = append(t.defaults, pendingDefault{node: n, path: path, ptr: ptr, schema: out, value: def})
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

// sub appends a keyword to a schema path.
func sub(path, keyword string) string {
	if path == "" {
		return keyword
	}
	return path + "." + keyword
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
