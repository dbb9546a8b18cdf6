package cel

import (
	"fmt"
	"slices"

	structural "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// structure returns the problems kube-apiserver finds in a definition's
// list and map types: x-kubernetes-list-type (atomic, set or map, on
// arrays), x-kubernetes-list-map-keys (names of scalar item properties),
// x-kubernetes-map-type (atomic or granular, on objects), items of set and
// map lists not nullable. What kube-apiserver checks only on definitions
// created anew, and tolerates on those stored before (keys required or
// defaulted, never nullable), is not checked: Kubernetes' own OpenAPI for
// built-in kinds (ServiceAccount's secrets) breaks it.
func structure(s *structural.Structural) []string {
	var problems []string
	var walk func(s *structural.Structural, path string)
	walk = func(s *structural.Structural, path string) {
		if s == nil {
			return
		}
		problems = append(problems, mapType(s, path)...)
		problems = append(problems, listType(s, path)...)
		for name, p := range s.Properties {
			walk(&p, join(path, "properties."+name))
		}
		walk(s.Items, join(path, "items"))
		if s.AdditionalProperties != nil {
			walk(s.AdditionalProperties.Structural, join(path, "additionalProperties"))
		}
	}
	walk(s, "")
	return problems
}

func mapType(s *structural.Structural, path string) []string {
	if s.XMapType == nil {
		return nil
	}
	var out []string
	if s.Type != "object" {
		out = append(out, fmt.Sprintf("%s: must be object if x-kubernetes-map-type is specified", join(path, "type")))
	}
	if t := *s.XMapType; t != "atomic" && t != "granular" {
		out = append(out, fmt.Sprintf("%s: Unsupported value: %q: supported values: \"atomic\", \"granular\"", join(path, "x-kubernetes-map-type"), t))
	}
	return out
}

func listType(s *structural.Structural, path string) []string {
	at := join(path, "x-kubernetes-list-type")
	if s.XListType == nil {
		if len(s.XListMapKeys) > 0 {
			return []string{at + ": Required value: must be map if x-kubernetes-list-map-keys is non-empty"}
		}
		return nil
	}
	t := *s.XListType
	switch {
	case s.Type != "array":
		return []string{join(path, "type") + ": must be array if x-kubernetes-list-type is specified"}
	case t != "atomic" && t != "set" && t != "map":
		return []string{fmt.Sprintf("%s: Unsupported value: %q: supported values: \"atomic\", \"map\", \"set\"", at, t)}
	case t != "map" && len(s.XListMapKeys) > 0:
		return []string{fmt.Sprintf("%s: Invalid value: %q: must be map if x-kubernetes-list-map-keys is non-empty", at, t)}
	case t == "atomic":
		return nil
	}
	var out []string
	if s.Items != nil && s.Items.Nullable {
		out = append(out, fmt.Sprintf("%s: Forbidden: cannot be nullable when x-kubernetes-list-type is %s", join(path, "items.nullable"), t))
	}
	if t == "map" {
		out = append(out, mapKeys(s, path)...)
	}
	return out
}

// mapKeys checks the keys of a map list.
func mapKeys(s *structural.Structural, path string) []string {
	at := join(path, "x-kubernetes-list-map-keys")
	switch {
	case len(s.XListMapKeys) == 0:
		return []string{at + ": Required value: must not be empty if x-kubernetes-list-type is map"}
	case s.Items == nil:
		return []string{join(path, "items") + ": Required value: must have a schema if x-kubernetes-list-type is map"}
	case s.Items.Type != "object":
		return []string{join(path, "items.type") + ": must be object if parent array's x-kubernetes-list-type is map"}
	}
	var out []string
	for i, k := range s.XListMapKeys {
		key := join(path, "items.properties."+k)
		p, ok := s.Items.Properties[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: Invalid value: %q: entries must all be names of item properties", at, k))
			continue
		case slices.Contains(s.XListMapKeys[:i], k):
			out = append(out, fmt.Sprintf("%s: Invalid value: %q: must not contain duplicate entries", at, k))
		}
		if p.Type == "array" || p.Type == "object" {
			out = append(out, join(key, "type")+": must be a scalar type if parent array's x-kubernetes-list-type is map")
		}
	}
	return out
}
