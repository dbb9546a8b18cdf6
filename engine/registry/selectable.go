package registry

import (
	"encoding/json"
	"fmt"
	"strings"
)

// schemaNode is the part of an OpenAPI schema needed to find a field's type.
type schemaNode struct {
	Type       string                `json:"type"`
	Properties map[string]schemaNode `json:"properties"`
}

// checkSelectableFields applies Kubernetes' rules: each field exists in the
// schema, outside metadata, and is a string, boolean or integer (field
// selectors compare text); no duplicates; at most eight.
func (v *nativeVersion) checkSelectableFields(r *reasons) {
	if len(v.SelectableFields) == 0 {
		return
	}
	var root schemaNode
	if !hasSchema(v.Schema) {
		r.addf("selectableFields: may only be set when the version has a schema")
		return
	}
	if json.Unmarshal(v.Schema, &root) != nil {
		return // not a schema at all: compiling it reports why
	}
	seen := map[string]bool{}
	for i, f := range v.SelectableFields {
		field := fmt.Sprintf("selectableFields[%d]", i)
		switch {
		case f.JSONPath == "":
			r.addf("%s: jsonPath is required", field)
		case seen[f.JSONPath]:
			r.addf("%s %q: duplicate value", field, f.JSONPath)
		default:
			if err := root.selectable(f.JSONPath); err != "" {
				r.addf("%s %q: %s", field, f.JSONPath, err)
			}
		}
		seen[f.JSONPath] = true
	}
	if len(seen) > maxSelectableFields {
		r.addf("selectableFields: must have at most %d items", maxSelectableFields)
	}
}

// selectable returns why path cannot be a selectable field, or "".
func (n schemaNode) selectable(path string) string {
	rest, ok := strings.CutPrefix(path, ".")
	if !ok {
		return "must be a simple json path starting with ."
	}
	segments := strings.Split(rest, ".")
	if segments[0] == "metadata" {
		return "must not point to fields in metadata"
	}
	for _, s := range segments {
		child, ok := n.Properties[s]
		if !ok {
			return "is an invalid path: no such field in the schema"
		}
		n = child
	}
	switch n.Type {
	case "string", "boolean", "integer":
		return ""
	}
	return "must point to a field of type string, boolean or integer"
}
