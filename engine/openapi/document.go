package openapi

import (
	"encoding/json"
	"fmt"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine/registry"
)

const (
	objectMetaRef = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	listMetaRef   = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
)

// buildGroupVersion renders the document of one group version: a path item
// per URL of every resource served in it, and a schema per kind and list kind.
func buildGroupVersion(resources []*registry.Resource, version string, deletes DeletesCollections) ([]byte, error) {
	paths := map[string]any{}
	schemas := map[string]json.RawMessage{
		"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": json.RawMessage(objectMetaSchema),
		"io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta":   json.RawMessage(listMetaSchema),
		"io.k8s.apimachinery.pkg.apis.meta.v1.Status":     json.RawMessage(statusSchema),
	}
	group := resources[0].Group // a group version is served by one resource at least
	for _, r := range resources {
		v, _ := r.Version(version)
		kindSchema, err := kindSchema(r, v)
		if err != nil {
			return nil, err
		}
		schemas[schemaName(group, version, r.Kind)] = kindSchema
		schemas[schemaName(group, version, r.ListKind)] = listSchema(r, version)
		for path, item := range pathItems(r, v, deletes(r.GroupResource())) {
			paths[path] = item.v3()
		}
	}
	doc := map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "dynapi", "version": apiVersion(group, version)},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	}
	return json.Marshal(doc)
}

// kindSchema is the version's schema with metadata pointing at ObjectMeta
// and the GVK extension kubectl looks kinds up by.
func kindSchema(r *registry.Resource, v *registry.Version) (json.RawMessage, error) {
	out, err := sjson.SetRawBytes(v.Schema.Raw(), "properties.metadata", []byte(`{"allOf":[{"$ref":"`+objectMetaRef+`"}],"description":"Standard object's metadata."}`))
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", r.Kind, err)
	}
	out, err = sjson.SetBytes(out, "x-kubernetes-group-version-kind", []any{gvk(r.Group, v.Name, r.Kind)})
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", r.Kind, err)
	}
	return out, nil
}

func listSchema(r *registry.Resource, version string) json.RawMessage {
	s := map[string]any{
		"type":        "object",
		"description": r.ListKind + " is a list of " + r.Kind,
		"required":    []string{"items"},
		"properties": map[string]any{
			"apiVersion": map[string]string{"type": "string"},
			"kind":       map[string]string{"type": "string"},
			"items":      map[string]any{"type": "array", "items": ref(schemaName(r.Group, version, r.Kind))},
			"metadata":   map[string]any{"allOf": []any{map[string]string{"$ref": listMetaRef}}},
		},
		"x-kubernetes-group-version-kind": []any{gvk(r.Group, version, r.ListKind)},
	}
	out, _ := json.Marshal(s) // maps of strings always encode
	return out
}

func ref(name string) map[string]string {
	return map[string]string{"$ref": "#/components/schemas/" + name}
}
