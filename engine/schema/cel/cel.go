// Package cel enforces what kube-apiserver enforces on custom resources
// beyond their OpenAPI schema: x-kubernetes-validations rules (CEL),
// x-kubernetes-list-type set and map uniqueness, and the apiVersion, kind
// and metadata of x-kubernetes-embedded-resource objects. It wraps
// Kubernetes' own code (k8s.io/apiextensions-apiserver's structural schema,
// CEL validator and list-type check, k8s.io/apiserver's CEL environment and
// libraries), and is the only package that imports cel-go or those. It
// also compiles and evaluates the CEL of kube's AuthenticationConfiguration
// (claim and user validation rules, claim mappings: see JWT).
//
// Rules are compiled once, when a schema is compiled; objects are decoded
// into Go maps only for schemas that need it, so kinds with nothing to
// enforce pay nothing.
package cel

import (
	"bytes"
	"encoding/json"
	"fmt"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structural "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiextensionscel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// Validator enforces one schema's rules, list types and embedded
// resources. It is immutable and safe for concurrent use.
type Validator struct {
	schema *structural.Structural
	rules  *apiextensionscel.Validator // nil: no x-kubernetes-validations
	lists  bool                        // some list is x-kubernetes-list-type set or map
	embeds bool                        // some object below the root is an embedded resource
}

// Compile compiles the rules of an openAPIV3Schema given as JSON (already
// accepted by the schema package). It returns nil, nil when the schema has
// nothing for a Validator to enforce. The error lists every rule that does
// not compile or costs more than Kubernetes allows, and every misuse of
// list and map types, one per line, as
// "schema.path.x-kubernetes-validations[i].rule: reason".
func Compile(openAPIV3Schema []byte) (*Validator, error) {
	if !mentions(openAPIV3Schema) {
		return nil, nil
	}
	s, err := structuralOf(openAPIV3Schema)
	if err != nil {
		return nil, err
	}
	v := &Validator{schema: s}
	c := survey(s)
	v.lists, v.embeds = c.lists, c.embeds
	problems := structure(s)
	if c.rules && len(problems) == 0 {
		problems = check(s)
	}
	if len(problems) > 0 {
		return nil, problemsError(problems)
	}
	if c.rules {
		v.rules = apiextensionscel.NewValidator(s, true, celconfig.PerCallLimit)
	}
	if v.rules == nil && !v.lists && !v.embeds {
		return nil, nil
	}
	return v, nil
}

// markers are the keywords a Validator enforces.
var markers = [][]byte{[]byte(`"x-kubernetes-validations"`), []byte(`"x-kubernetes-list-type"`), []byte(`"x-kubernetes-embedded-resource"`),
	[]byte(`"x-kubernetes-list-map-keys"`), []byte(`"x-kubernetes-map-type"`)}

// mentions reports whether the schema text names one of the markers: most
// schemas do not, and their compilation then builds nothing.
func mentions(openAPIV3Schema []byte) bool {
	for _, m := range markers {
		if bytes.Contains(openAPIV3Schema, m) {
			return true
		}
	}
	return false
}

// structuralOf builds Kubernetes' structural schema from openAPIV3Schema,
// unfolded as kube-apiserver serves it (int-or-string and embedded
// resources spelled out).
func structuralOf(openAPIV3Schema []byte) (*structural.Structural, error) {
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(openAPIV3Schema, &v1); err != nil {
		return nil, fmt.Errorf("openAPIV3Schema: %w", err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		return nil, fmt.Errorf("openAPIV3Schema: %w", err)
	}
	s, err := structural.NewStructural(&internal)
	if err != nil {
		return nil, fmt.Errorf("openAPIV3Schema: not a structural schema: %w", err)
	}
	return s.Unfold(), nil
}

// contents says what a schema holds that a Validator enforces.
type contents struct{ rules, lists, embeds bool }

// survey walks s and everything below it.
func survey(s *structural.Structural) contents {
	var c contents
	var walk func(s *structural.Structural, root bool)
	walk = func(s *structural.Structural, root bool) {
		if s == nil {
			return
		}
		c.rules = c.rules || len(s.XValidations) > 0
		if s.XListType != nil && (*s.XListType == "set" || *s.XListType == "map") {
			c.lists = true
		}
		c.embeds = c.embeds || (!root && s.XEmbeddedResource)
		for _, p := range s.Properties {
			walk(&p, false)
		}
		walk(s.Items, false)
		if s.AdditionalProperties != nil {
			walk(s.AdditionalProperties.Structural, false)
		}
	}
	walk(s, true)
	return c
}
