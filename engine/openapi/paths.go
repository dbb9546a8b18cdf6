package openapi

import (
	"strings"

	"github.com/dynapi/dynapi/engine/registry"
)

// pathItems describes every URL of one resource in one version, with the
// operations dynapi serves there.
func pathItems(r *registry.Resource, v *registry.Version) map[string]any {
	base := "/" + gvPath(r.Group, v.Name)
	kind := gvk(r.Group, v.Name, r.Kind)
	objRef := ref(schemaName(r.Group, v.Name, r.Kind))
	listRef := ref(schemaName(r.Group, v.Name, r.ListKind))
	scope := ""
	collection := base + "/" + r.Plural
	params := []any{}
	if r.Namespaced {
		scope = "Namespaced"
		collection = base + "/namespaces/{namespace}/" + r.Plural
		params = append(params, pathParam("namespace", "object name and auth scope, such as for teams and projects"))
	}
	item := collection + "/{name}"
	itemParams := append(append([]any{}, params...), pathParam("name", "name of the "+r.Kind))
	op := func(verb, action, desc string, query []any, body map[string]any, resp map[string]string) map[string]any {
		return operation(verb+scope+r.Kind, action, desc, kind, query, body, resp)
	}
	collectionOps := map[string]any{
		"parameters": params,
		"get":        op("list", "list", "list or watch objects of kind "+r.Kind, listQuery, nil, listRef),
		"post":       op("create", "post", "create a "+r.Kind, writeQuery, jsonBody(objRef), objRef),
	}
	if r.DeletesCollections() {
		collectionOps["delete"] = op("deletecollection", "deletecollection", "delete collection of "+r.Kind, listQuery, nil, listRef)
	}
	items := map[string]any{
		collection: collectionOps,
		item: map[string]any{
			"parameters": itemParams,
			"get":        op("read", "get", "read the specified "+r.Kind, nil, nil, objRef),
			"put":        op("replace", "put", "replace the specified "+r.Kind, writeQuery, jsonBody(objRef), objRef),
			"patch":      op("patch", "patch", "partially update the specified "+r.Kind, writeQuery, patchBody(), objRef),
			"delete":     op("delete", "delete", "delete a "+r.Kind, []any{queryParam("dryRun", "string")}, nil, objRef),
		},
	}
	if r.Namespaced {
		items[base+"/"+r.Plural] = map[string]any{
			"get": operation("list"+r.Kind+"ForAllNamespaces", "list", "list objects of kind "+r.Kind, kind, listQuery, nil, listRef),
		}
	}
	if v.Subresources.Status {
		items[item+"/status"] = map[string]any{
			"parameters": itemParams,
			"get":        op("read", "get", "read status of the specified "+r.Kind, nil, nil, objRef),
			"put":        op("replace", "put", "replace status of the specified "+r.Kind, writeQuery, jsonBody(objRef), objRef),
			"patch":      op("patch", "patch", "partially update status of the specified "+r.Kind, writeQuery, patchBody(), objRef),
		}
	}
	return items
}

// Query parameters dynapi honours, named as kube-apiserver names them. The
// fieldValidation parameter on PATCH is how kubectl learns that the server
// validates fields itself (and skips validating on the client).
var (
	writeQuery = []any{queryParam("dryRun", "string"), queryParam("fieldManager", "string"), queryParam("fieldValidation", "string")}
	listQuery  = []any{queryParam("labelSelector", "string"), queryParam("fieldSelector", "string"),
		queryParam("limit", "integer"), queryParam("continue", "string")}
)

func operation(id, action, desc string, kind map[string]string, query []any, body map[string]any, resp map[string]string) map[string]any {
	op := map[string]any{
		"operationId":                     strings.ReplaceAll(id, ".", ""),
		"description":                     desc,
		"responses":                       map[string]any{"200": map[string]any{"description": "OK", "content": jsonContent(resp)}},
		"x-kubernetes-action":             action,
		"x-kubernetes-group-version-kind": kind,
	}
	if len(query) > 0 {
		op["parameters"] = query
	}
	if body != nil {
		op["requestBody"] = body
	}
	return op
}

func pathParam(name, desc string) map[string]any {
	return map[string]any{"name": name, "in": "path", "required": true, "description": desc, "schema": map[string]any{"type": "string", "uniqueItems": true}}
}

func queryParam(name, typ string) map[string]any {
	return map[string]any{"name": name, "in": "query", "schema": map[string]any{"type": typ, "uniqueItems": true}}
}

func jsonContent(schema map[string]string) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}, "application/yaml": map[string]any{"schema": schema}}
}

func jsonBody(schema map[string]string) map[string]any {
	return map[string]any{"required": true, "content": jsonContent(schema)}
}

func patchBody() map[string]any {
	patch := map[string]any{"schema": map[string]string{"type": "object"}}
	return map[string]any{"required": true, "content": map[string]any{
		"application/json-patch+json": patch, "application/merge-patch+json": patch}}
}
