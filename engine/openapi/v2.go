package openapi

import (
	"encoding/json"
	"fmt"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	"github.com/dynapi/dynapi/engine/registry"
)

// V2 is the Swagger 2.0 document of a snapshot, as kube-apiserver serves
// it at /openapi/v2: in JSON, and in the protobuf encoding kubectl asks
// for.
type V2 struct {
	JSON, Proto []byte
	// Hash identifies the document, for its ETag.
	Hash string
}

// buildV2 renders the Swagger 2.0 document of every served kind. kubectl
// reads it for two things: the patch types a kind's PATCH consumes (apply
// sends a strategic merge patch only to a kind that consumes one), and the
// models it validates a file against on the client when the server cannot,
// as for a List file, whose items it checks one by one.
//
// Each kind's model is its version's structural schema as kube-apiserver
// converts it to Swagger 2.0 (see kindModelV2), so that kubectl, which
// cannot read in Swagger 2.0 all a structural schema says, reads nothing
// that makes it refuse a valid object.
func buildV2(snap *registry.Snapshot, deletes DeletesCollections) (V2, error) {
	paths, definitions := map[string]any{}, metaModelsV2()
	for _, g := range snap.Groups() {
		for _, version := range g.Versions {
			for _, r := range snap.ServedResources(g.Name, version) {
				v, _ := r.Version(version)
				model, err := kindModelV2(r, v)
				if err != nil {
					return V2{}, err
				}
				definitions[schemaName(r.Group, version, r.Kind)] = model
				definitions[schemaName(r.Group, version, r.ListKind)] = listModelV2(r, version)
				for path, item := range pathItems(r, v, deletes(r.GroupResource())) {
					paths[path] = item.v2()
				}
			}
		}
	}
	body, err := json.Marshal(map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "dynapi", "version": "v1"},
		"paths":       paths,
		"definitions": definitions,
	})
	if err != nil {
		return V2{}, err
	}
	doc, err := openapiv2.ParseDocument(body)
	if err != nil {
		return V2{}, fmt.Errorf("openapi v2: %w", err)
	}
	pb, err := proto.Marshal(doc)
	if err != nil {
		return V2{}, fmt.Errorf("openapi v2 protobuf: %w", err)
	}
	return V2{JSON: body, Proto: pb, Hash: hashOf(body)}, nil
}

// anyObject is a model of an object of any shape, of the given kind.
func anyObject(desc string, kind map[string]string) map[string]any {
	return map[string]any{"description": desc, "type": "object", "x-kubernetes-group-version-kind": []any{kind}}
}

// v2 renders the path item as a Swagger 2.0 path item.
func (p pathItem) v2() map[string]any {
	out := map[string]any{}
	if p.params != nil {
		out["parameters"] = v2Params(p.params)
	}
	for method, o := range p.ops {
		op := o.common()
		op["produces"] = jsonTypes
		op["schemes"] = []string{"https"}
		op["responses"] = map[string]any{"200": map[string]any{"description": "OK", "schema": v2Ref(o.resp)}}
		params := v2Params(o.query)
		if o.bodyTypes != nil {
			op["consumes"] = o.bodyTypes
			params = append(params, map[string]any{"name": "body", "in": "body", "required": true, "schema": o.bodyRef(v2Ref)})
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		out[method] = op
	}
	return out
}

func v2Params(params []param) []any {
	out := make([]any, 0, len(params))
	for _, p := range params {
		m := map[string]any{"name": p.name, "in": p.in, "type": p.typ, "uniqueItems": true}
		if p.desc != "" {
			m["description"] = p.desc
		}
		if p.in == "path" {
			m["required"] = true
		}
		out = append(out, m)
	}
	return out
}

func v2Ref(name string) map[string]string {
	return map[string]string{"$ref": "#/definitions/" + name}
}
