package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dynapi/dynapi/engine/registry"
)

// Swagger 2.0 models of the kinds, as kube-apiserver publishes a
// CustomResourceDefinition's at /openapi/v2: each version's structural
// schema with what Swagger 2.0 (and kubectl reading it) cannot take
// dropped the same way (k8s.io/apiextensions-apiserver's
// ToStructuralOpenAPIV2): allOf, anyOf, oneOf and not go; a nullable value
// loses its type, items and properties (and is no longer required); a
// value that keeps unknown fields loses its items and properties, and its
// type when an object; an array without items loses its type. What stays
// (properties, descriptions, required, enums, formats, bounds,
// x-kubernetes-* extensions) is what kubectl explain and client-side
// validation read.

// kindModelV2 is the Swagger 2.0 model of r's kind in version v.
func kindModelV2(r *registry.Resource, v *registry.Version) (map[string]any, error) {
	var s map[string]any
	if v.Schema == nil {
		return anyObject(r.Kind, gvk(r.Group, v.Name, r.Kind)), nil
	}
	if err := json.Unmarshal(v.Schema.Raw(), &s); err != nil {
		return nil, fmt.Errorf("schema of %s %s: %w", r.Kind, v.Name, err)
	}
	if isTrue(s, "x-kubernetes-preserve-unknown-fields") {
		// As kube's builder: a kind that keeps unknown fields at its root
		// (a CRD "without validation schema") is an object and nothing
		// more, not even metadata, which kubectl would take for the only
		// fields allowed.
		return map[string]any{"type": "object", "x-kubernetes-group-version-kind": []any{gvk(r.Group, v.Name, r.Kind)}}, nil
	}
	toV2(s)
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		s["properties"] = props
	}
	props["metadata"] = map[string]any{"$ref": "#/definitions/" + objectMetaName}
	s["x-kubernetes-group-version-kind"] = []any{gvk(r.Group, v.Name, r.Kind)}
	return s, nil
}

// listModelV2 is the Swagger 2.0 model of r's list kind in version.
func listModelV2(r *registry.Resource, version string) map[string]any {
	return map[string]any{
		"description": r.ListKind + " is a list of " + r.Kind, "type": "object", "required": []string{"items"},
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string"},
			"kind":       map[string]any{"type": "string"},
			"items":      map[string]any{"type": "array", "items": map[string]any{"$ref": "#/definitions/" + schemaName(r.Group, version, r.Kind)}},
			"metadata":   map[string]any{"$ref": "#/definitions/" + listMetaName},
		},
		"x-kubernetes-group-version-kind": []any{gvk(r.Group, version, r.ListKind)},
	}
}

// Names of the metadata models.
const (
	objectMetaName = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	listMetaName   = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
)

// metaModelsV2 are the metadata models the kinds refer to, converted too.
func metaModelsV2() map[string]any {
	out := map[string]any{}
	for name, text := range map[string]string{objectMetaName: objectMetaSchema, listMetaName: listMetaSchema} {
		var s map[string]any
		_ = json.Unmarshal([]byte(text), &s) // constants, valid JSON
		toV2(s)
		out[name] = s
	}
	return out
}

// v2Keywords are the keywords of a Swagger 2.0 schema that a structural
// schema may hold; any other key but an extension (x-...) is dropped.
var v2Keywords = map[string]bool{"$ref": true, "format": true, "title": true, "description": true, "default": true,
	"multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true,
	"maxLength": true, "minLength": true, "pattern": true, "maxItems": true, "minItems": true, "uniqueItems": true,
	"maxProperties": true, "minProperties": true, "required": true, "enum": true, "additionalProperties": true,
	"type": true, "items": true, "properties": true, "example": true, "nullable": true}

// toV2 converts one schema node and its children in place.
func toV2(s map[string]any) {
	for key := range s {
		if !v2Keywords[key] && !strings.HasPrefix(key, "x-") {
			delete(s, key) // allOf, anyOf, oneOf, not, and what Swagger 2.0 lacks
		}
	}
	props, _ := s["properties"].(map[string]any)
	if req, ok := s["required"].([]any); ok {
		s["required"] = slices.DeleteFunc(req, func(f any) bool {
			name, _ := f.(string)
			child, _ := props[name].(map[string]any)
			return isTrue(child, "nullable")
		})
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok && isTrue(ap, "nullable") {
		delete(s, "required")
	}
	if req, ok := s["required"].([]any); ok && len(req) == 0 {
		delete(s, "required")
	}
	if isTrue(s, "nullable") {
		delete(s, "type")
		delete(s, "nullable")
		delete(s, "items")
		delete(s, "properties")
	}
	if isTrue(s, "x-kubernetes-preserve-unknown-fields") {
		delete(s, "items")
		delete(s, "properties")
		if s["type"] == "object" {
			delete(s, "type")
		}
	}
	if _, ok := s["items"]; !ok && s["type"] == "array" {
		delete(s, "type")
	}
	props, _ = s["properties"].(map[string]any)
	for _, child := range props {
		if c, ok := child.(map[string]any); ok {
			toV2(c)
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if c, ok := s[key].(map[string]any); ok {
			toV2(c)
		}
	}
}

func isTrue(s map[string]any, key string) bool {
	b, _ := s[key].(bool)
	return b
}
