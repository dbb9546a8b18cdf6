package main

import (
	"encoding/json"
	"fmt"
)

// kindGroups is how many kinds share an API group in the kinds phase, as
// an operator's CRDs do (Crossplane providers ship dozens per group).
const kindGroups = 10

// genKind is one generated definition of the kinds phase.
type genKind struct {
	name, group, kind, plural string
}

// newGenKind names the i-th kind of a run; prefix keeps runs apart.
func newGenKind(prefix string, i int) genKind {
	g := fmt.Sprintf("g%d.%s.bench.example.com", i/kindGroups, prefix)
	kind := fmt.Sprintf("Gadget%d", i)
	plural := fmt.Sprintf("gadget%ds", i)
	return genKind{name: plural + "." + g, group: g, kind: kind, plural: plural}
}

// path is the kind's cluster-wide collection in version.
func (k genKind) path(version string) string {
	return "/apis/" + k.group + "/" + version + "/" + k.plural
}

// crd returns the kind as a CustomResourceDefinition of about 7 KB with
// versions v1 and v2 (the storage version), and v3 too when extra is set.
func (k genKind) crd(extra bool) []byte {
	versions := []any{k.version("v1", false), k.version("v2", true)}
	if extra {
		versions = append(versions, k.version("v3", false))
	}
	doc := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": k.name},
		"spec": map[string]any{
			"group": k.group, "scope": "Namespaced",
			"names": map[string]any{"kind": k.kind, "plural": k.plural, "singular": k.plural[:len(k.plural)-1],
				"listKind": k.kind + "List", "categories": []string{"bench"}},
			"versions": versions,
		},
	}
	out, err := json.Marshal(doc)
	if err != nil {
		panic(err) // maps of strings and slices always marshal
	}
	return out
}

// version is one version of the generated kind: a spec of typical fields
// with descriptions, a status with conditions, printer columns.
func (k genKind) version(name string, storage bool) map[string]any {
	props := map[string]any{}
	for i := range 12 {
		props[fmt.Sprintf("field%d", i)] = fieldSchema(i, k.kind+" "+name)
	}
	props["selector"] = map[string]any{"type": "object", "description": describe("label selector of the pods"),
		"additionalProperties": map[string]any{"type": "string"}}
	status := map[string]any{"type": "object", "properties": map[string]any{
		"observedGeneration": map[string]any{"type": "integer", "format": "int64"},
		"phase":              map[string]any{"type": "string", "enum": []string{"Pending", "Ready", "Failed"}},
		"conditions": map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "required": []string{"type", "status"},
			"properties": map[string]any{
				"type": map[string]any{"type": "string"}, "status": map[string]any{"type": "string"},
				"reason": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"},
				"lastTransitionTime": map[string]any{"type": "string", "format": "date-time"},
			}}},
	}}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"spec":   map[string]any{"type": "object", "required": []string{"field0"}, "properties": props},
		"status": status,
	}}
	return map[string]any{
		"name": name, "served": true, "storage": storage,
		"schema":       map[string]any{"openAPIV3Schema": schema},
		"subresources": map[string]any{"status": map[string]any{}},
		"additionalPrinterColumns": []map[string]any{
			{"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
			{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
		},
	}
}

// fieldSchema varies the fields' types as real CRDs do. owner (kind and
// version) is in its description: no two kinds, nor two versions, share a
// schema, as dynapi compiles a schema once whoever declares it.
func fieldSchema(i int, owner string) map[string]any {
	d := describe(fmt.Sprintf("field %d of %s", i, owner))
	switch i % 4 {
	case 0:
		return map[string]any{"type": "string", "description": d, "maxLength": 253}
	case 1:
		return map[string]any{"type": "integer", "description": d, "minimum": 0, "default": 1}
	case 2:
		return map[string]any{"type": "array", "description": d, "items": map[string]any{"type": "string"}}
	}
	return map[string]any{"type": "object", "description": d, "properties": map[string]any{
		"name": map[string]any{"type": "string"}, "port": map[string]any{"type": "integer", "maximum": 65535},
		"enabled": map[string]any{"type": "boolean"}}}
}

// describe makes a description of the length real CRDs have.
func describe(what string) string {
	return "The " + what + ". It is set by the user, defaulted by the server when absent, " +
		"and read by the controller."
}
