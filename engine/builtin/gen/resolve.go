package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// document is one OpenAPI v3 file's component schemas.
type document struct {
	schemas map[string]map[string]any
}

func readDocument(file string) (*document, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var d struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &document{schemas: d.Components.Schemas}, nil
}

const (
	refPrefix  = "#/components/schemas/"
	objectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	microTime  = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"
	// microTimePattern is the form metav1.MicroTime reads (RFC 3339 with
	// exactly six fraction digits), which the OpenAPI's date-time does not
	// say: kube-apiserver refuses another form when it decodes the body,
	// and dynapi must too, or the object could not be encoded as protobuf.
	microTimePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}(Z|[+-][0-9]{2}:[0-9]{2})$`
)

// dropped are the keys a definition's schema leaves out: they describe
// the OpenAPI document, not the object.
var dropped = map[string]bool{"x-kubernetes-group-version-kind": true, "x-kubernetes-unions": true}

// resolve returns the component name's schema with every $ref inlined.
// metadata becomes {type: object}: the server owns ObjectMeta's checks, as
// for custom resources.
func (d *document) resolve(name string) (map[string]any, error) {
	s, err := d.inline(name, nil)
	if err != nil {
		return nil, err
	}
	props, _ := s["properties"].(map[string]any)
	if _, ok := props["metadata"]; ok {
		props["metadata"] = map[string]any{"type": "object"}
	}
	return s, nil
}

// inline copies component name with its references resolved; seen are the
// components being inlined, to refuse recursion.
func (d *document) inline(name string, seen []string) (map[string]any, error) {
	for _, s := range seen {
		if s == name {
			return nil, fmt.Errorf("%s refers to itself (%s): a structural schema cannot be recursive", name, strings.Join(seen, " → "))
		}
	}
	src, ok := d.schemas[name]
	if !ok {
		return nil, fmt.Errorf("no component %s", name)
	}
	if name == objectMeta {
		return map[string]any{"type": "object"}, nil
	}
	out, err := d.walk(src, append(seen, name))
	if name == microTime && err == nil {
		out["pattern"] = microTimePattern
	}
	return out, err
}

// walk copies one schema node, resolving $ref and single-item allOf (how
// the OpenAPI writes a reference with a description or default beside it).
func (d *document) walk(src map[string]any, seen []string) (map[string]any, error) {
	out := map[string]any{}
	if ref, ok := refOf(src); ok {
		target, err := d.inline(strings.TrimPrefix(ref, refPrefix), seen)
		if err != nil {
			return nil, err
		}
		for k, v := range target {
			out[k] = v
		}
	}
	for k, v := range src {
		switch {
		case k == "$ref" || k == "allOf" && isRefList(v) || dropped[k]:
		case k == "x-kubernetes-list-type" && src["type"] != "array":
			// The aggregator's OpenAPI marks caBundle (a []byte, so a
			// base64 string) atomic as if it were a list; a structural
			// schema allows the marker only on arrays.
		case k == "default" && isZero(v):
			// "", 0, false, {} and [] defaults describe Go's zero values
			// (what a Go client sends for a field it leaves out); applied,
			// they would add empty fields to every object and satisfy
			// every required field.
		case k == "properties":
			props := map[string]any{}
			for name, p := range v.(map[string]any) {
				w, err := d.walk(p.(map[string]any), seen)
				if err != nil {
					return nil, err
				}
				props[name] = w
			}
			out[k] = props
		case k == "items" || k == "additionalProperties":
			m, ok := v.(map[string]any)
			if !ok {
				out[k] = v
				continue
			}
			w, err := d.walk(m, seen)
			if err != nil {
				return nil, err
			}
			out[k] = w
		default:
			out[k] = v
		}
	}
	return out, nil
}

// refOf finds a node's reference: $ref, or allOf: [{$ref}].
func refOf(src map[string]any) (string, bool) {
	if ref, ok := src["$ref"].(string); ok {
		return ref, true
	}
	if list, ok := src["allOf"].([]any); ok && isRefList(list) {
		return list[0].(map[string]any)["$ref"].(string), true
	}
	return "", false
}

func isRefList(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) != 1 {
		return false
	}
	m, ok := list[0].(map[string]any)
	_, hasRef := m["$ref"]
	return ok && hasRef && len(m) == 1
}

func isZero(v any) bool {
	switch v := v.(type) {
	case map[string]any, []any:
		return true
	case string:
		return v == ""
	case float64:
		return v == 0
	case bool:
		return !v
	}
	return v == nil
}
