package openapi

import (
	"strings"

	"github.com/dynapi/dynapi/engine/registry"
)

// pathItem is one URL's operations, rendered into v3 (the group version
// documents) and Swagger 2.0 (/openapi/v2).
type pathItem struct {
	params []param        // path parameters
	ops    map[string]*op // by method: get, post, put, patch, delete
}

// op is one operation of a path.
type op struct {
	id, action, desc string
	kind             map[string]string // x-kubernetes-group-version-kind
	query            []param
	bodyTypes        []string // media types of the request body; none: no body
	bodySchema       string   // schema name of the body; "": any object (a patch)
	resp             string   // schema name of the 200 answer
}

// param is a path or query parameter.
type param struct{ name, in, typ, desc string }

// pathItems describes every URL of one resource in one version, with the
// operations dynapi serves there.
func pathItems(r *registry.Resource, v *registry.Version, deletesCollections bool) map[string]pathItem {
	base := "/" + gvPath(r.Group, v.Name)
	kind := gvk(r.Group, v.Name, r.Kind)
	obj, list := schemaName(r.Group, v.Name, r.Kind), schemaName(r.Group, v.Name, r.ListKind)
	scope := ""
	collection := base + "/" + r.Plural
	var params []param
	if r.Namespaced {
		scope = "Namespaced"
		collection = base + "/namespaces/{namespace}/" + r.Plural
		params = append(params, param{"namespace", "path", "string", "object name and auth scope, such as for teams and projects"})
	}
	item := collection + "/{name}"
	itemParams := append(append([]param{}, params...), param{"name", "path", "string", "name of the " + r.Kind})
	newOp := func(verb, action, desc string, query []param, resp string) *op {
		return &op{id: verb + scope + r.Kind, action: action, desc: desc, kind: kind, query: query, resp: resp}
	}
	write := func(o *op) *op {
		o.bodyTypes, o.bodySchema = jsonTypes, obj
		return o
	}
	patch := func(o *op) *op {
		o.bodyTypes = patchTypes
		return o
	}
	collectionOps := map[string]*op{
		"get":  newOp("list", "list", "list or watch objects of kind "+r.Kind, listQuery, list),
		"post": write(newOp("create", "post", "create a "+r.Kind, writeQuery, obj)),
	}
	if deletesCollections {
		collectionOps["delete"] = newOp("deletecollection", "deletecollection", "delete collection of "+r.Kind, listQuery, list)
	}
	items := map[string]pathItem{
		collection: {params, collectionOps},
		item: {itemParams, map[string]*op{
			"get":    newOp("read", "get", "read the specified "+r.Kind, nil, obj),
			"put":    write(newOp("replace", "put", "replace the specified "+r.Kind, writeQuery, obj)),
			"patch":  patch(newOp("patch", "patch", "partially update the specified "+r.Kind, writeQuery, obj)),
			"delete": newOp("delete", "delete", "delete a "+r.Kind, []param{{"dryRun", "query", "string", ""}}, obj),
		}},
	}
	if r.Namespaced {
		items[base+"/"+r.Plural] = pathItem{ops: map[string]*op{
			"get": {id: "list" + r.Kind + "ForAllNamespaces", action: "list", desc: "list objects of kind " + r.Kind, kind: kind, query: listQuery, resp: list},
		}}
	}
	if v.Subresources.Status {
		items[item+"/status"] = pathItem{itemParams, map[string]*op{
			"get":   newOp("read", "get", "read status of the specified "+r.Kind, nil, obj),
			"put":   write(newOp("replace", "put", "replace status of the specified "+r.Kind, writeQuery, obj)),
			"patch": patch(newOp("patch", "patch", "partially update status of the specified "+r.Kind, writeQuery, obj)),
		}}
	}
	return items
}

// Query parameters dynapi honours, named as kube-apiserver names them. The
// fieldValidation parameter on PATCH is how kubectl learns that the server
// validates fields itself (and skips validating on the client).
var (
	writeQuery = []param{{"dryRun", "query", "string", ""}, {"fieldManager", "query", "string", ""}, {"fieldValidation", "query", "string", ""}}
	listQuery  = []param{{"labelSelector", "query", "string", ""}, {"fieldSelector", "query", "string", ""},
		{"limit", "query", "integer", ""}, {"continue", "query", "string", ""}}
)

// Media types of request bodies. The patch types are those of every kind:
// kubectl's apply chooses a strategic merge patch for a kind whose PATCH
// consumes one, and only a built-in kind takes it (Namespace), which
// kubectl patches from its own Go types anyway.
var (
	jsonTypes  = []string{"application/json", "application/yaml"}
	patchTypes = []string{"application/json-patch+json", "application/merge-patch+json"}
)

// v3 renders the path item as an OpenAPI v3 path item.
func (p pathItem) v3() map[string]any {
	out := map[string]any{}
	if p.params != nil {
		out["parameters"] = v3Params(p.params)
	}
	for method, o := range p.ops {
		op := o.common()
		op["responses"] = map[string]any{"200": map[string]any{"description": "OK", "content": content(jsonTypes, ref(o.resp))}}
		if o.query != nil {
			op["parameters"] = v3Params(o.query)
		}
		if o.bodyTypes != nil {
			op["requestBody"] = map[string]any{"required": true, "content": content(o.bodyTypes, o.bodyRef(ref))}
		}
		out[method] = op
	}
	return out
}

// common is what an operation says the same way in v3 and v2.
func (o *op) common() map[string]any {
	return map[string]any{
		"operationId":                     operationID(o.id),
		"description":                     o.desc,
		"x-kubernetes-action":             o.action,
		"x-kubernetes-group-version-kind": o.kind,
	}
}

// operationID is the operation's ID as kube-apiserver writes it: without
// the dots of a kind's name.
func operationID(id string) string { return strings.ReplaceAll(id, ".", "") }

// bodyRef is the body's schema: its reference, or any object for a patch.
func (o *op) bodyRef(ref func(string) map[string]string) map[string]string {
	if o.bodySchema == "" {
		return map[string]string{"type": "object"}
	}
	return ref(o.bodySchema)
}

func v3Params(params []param) []any {
	out := make([]any, len(params))
	for i, p := range params {
		m := map[string]any{"name": p.name, "in": p.in, "schema": map[string]any{"type": p.typ, "uniqueItems": true}}
		if p.desc != "" {
			m["description"] = p.desc
		}
		if p.in == "path" {
			m["required"] = true
		}
		out[i] = m
	}
	return out
}

func content(types []string, schema map[string]string) map[string]any {
	out := map[string]any{}
	for _, t := range types {
		out[t] = map[string]any{"schema": schema}
	}
	return out
}
