package schema

import (
	"context"

	"github.com/dynapi/dynapi/engine"
)

// HasRules reports whether ValidateRules has anything to check: CEL rules,
// set or map lists, or embedded resources. Objects of a schema without
// them skip that step, and pay nothing for it.
func (s *Schema) HasRules() bool {
	return s != nil && s.cel != nil
}

// ValidateRules returns what kube-apiserver checks on a custom resource
// after its OpenAPI schema (see cel.Validator.Validate): the
// x-kubernetes-validations rules, with transition rules and ratcheting on
// update (old: the object replaced, in the same version; nil on create),
// x-kubernetes-list-type set and map duplicates, and embedded resources'
// apiVersion, kind and metadata. obj must have passed Validate. Errors: an
// object that is not JSON.
func (s *Schema) ValidateRules(ctx context.Context, obj, old []byte) ([]engine.FieldError, error) {
	if !s.HasRules() {
		return nil, nil
	}
	return s.cel.Validate(ctx, obj, old)
}
