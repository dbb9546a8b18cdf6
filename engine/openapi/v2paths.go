package openapi

import (
	"slices"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"go.yaml.in/yaml/v3"
)

// The path items of the v2 document in protobuf, built as the messages
// gnostic makes of their JSON (openapiv2.NewDocument), without rendering
// the JSON as YAML nodes and compiling them: a kind's paths are two thirds
// of the document, and compiling them was most of what v2 cost.

// v2PathsProto returns the path items as gnostic's Paths, in the order of
// their paths, as the JSON document has them.
func v2PathsProto(items map[string]pathItem) *openapiv2.Paths {
	names := make([]string, 0, len(items))
	for name := range items {
		names = append(names, name)
	}
	slices.Sort(names)
	out := &openapiv2.Paths{Path: make([]*openapiv2.NamedPathItem, len(names))}
	exts := extensions{}
	for i, name := range names {
		out.Path[i] = &openapiv2.NamedPathItem{Name: name, Value: items[name].proto(exts)}
	}
	return out
}

// proto is the path item as gnostic's PathItem.
func (p pathItem) proto(exts extensions) *openapiv2.PathItem {
	out := &openapiv2.PathItem{Parameters: v2ParamsProto(p.params)}
	slots := map[string]**openapiv2.Operation{"get": &out.Get, "put": &out.Put, "post": &out.Post,
		"delete": &out.Delete, "patch": &out.Patch}
	for method, o := range p.ops {
		*slots[method] = o.proto(exts)
	}
	return out
}

// proto is the operation as gnostic's Operation: what v2 renders in JSON.
func (o *op) proto(exts extensions) *openapiv2.Operation {
	out := &openapiv2.Operation{
		Description: o.desc,
		OperationId: operationID(o.id),
		Produces:    jsonTypes,
		Consumes:    o.bodyTypes,
		Parameters:  v2ParamsProto(o.query),
		Responses: &openapiv2.Responses{ResponseCode: []*openapiv2.NamedResponseValue{{Name: "200",
			Value: &openapiv2.ResponseValue{Oneof: &openapiv2.ResponseValue_Response{Response: &openapiv2.Response{
				Description: "OK", Schema: &openapiv2.SchemaItem{Oneof: &openapiv2.SchemaItem_Schema{
					Schema: &openapiv2.Schema{XRef: "#/definitions/" + o.resp}}}}}}}}},
		Schemes: []string{"https"},
		VendorExtension: []*openapiv2.NamedAny{
			{Name: "x-kubernetes-action", Value: exts.of(o.action)},
			{Name: "x-kubernetes-group-version-kind", Value: exts.of(o.kind)},
		},
	}
	if o.bodyTypes != nil {
		body := &openapiv2.Schema{XRef: "#/definitions/" + o.bodySchema}
		if o.bodySchema == "" {
			body = &openapiv2.Schema{Type: &openapiv2.TypeItem{Value: []string{"object"}}}
		}
		out.Parameters = append(out.Parameters, &openapiv2.ParametersItem{Oneof: &openapiv2.ParametersItem_Parameter{
			Parameter: &openapiv2.Parameter{Oneof: &openapiv2.Parameter_BodyParameter{BodyParameter: &openapiv2.BodyParameter{
				Name: "body", In: "body", Required: true, Schema: body}}}}})
	}
	return out
}

// v2ParamsProto is v2Params as gnostic's messages.
func v2ParamsProto(params []param) []*openapiv2.ParametersItem {
	if params == nil {
		return nil
	}
	out := make([]*openapiv2.ParametersItem, len(params))
	for i, p := range params {
		var nb openapiv2.NonBodyParameter
		if p.in == "path" {
			nb.Oneof = &openapiv2.NonBodyParameter_PathParameterSubSchema{PathParameterSubSchema: &openapiv2.PathParameterSubSchema{
				Required: true, In: p.in, Description: p.desc, Name: p.name, Type: p.typ, UniqueItems: true}}
		} else {
			nb.Oneof = &openapiv2.NonBodyParameter_QueryParameterSubSchema{QueryParameterSubSchema: &openapiv2.QueryParameterSubSchema{
				In: p.in, Description: p.desc, Name: p.name, Type: p.typ, UniqueItems: true}}
		}
		out[i] = &openapiv2.ParametersItem{Oneof: &openapiv2.ParametersItem_Parameter{
			Parameter: &openapiv2.Parameter{Oneof: &openapiv2.Parameter_NonBodyParameter{NonBodyParameter: &nb}}}}
	}
	return out
}

// extensions renders the values of vendor extensions as gnostic keeps
// them (YAML text), once per value: the operations of a kind share theirs.
type extensions map[any]*openapiv2.Any

// of returns v as gnostic's Any. v is a string or a map[string]string
// (a group, version and kind); the maps of one kind are one map.
func (e extensions) of(v any) *openapiv2.Any {
	key := v
	if m, ok := v.(map[string]string); ok {
		key = m["group"] + "\x00" + m["version"] + "\x00" + m["kind"]
	}
	if a, ok := e[key]; ok {
		return a
	}
	text, _ := yaml.Marshal(v) // strings and maps of strings always encode
	a := &openapiv2.Any{Yaml: string(text)}
	e[key] = a
	return a
}
