package resource

import (
	"fmt"
	"strings"

	"github.com/dynapi/dynapi/engine"
)

// Field validation directives (the fieldValidation query parameter).
const (
	FieldValidationStrict = "Strict"
	FieldValidationWarn   = "Warn"
	FieldValidationIgnore = "Ignore"
)

// admit runs the schema steps of a write on obj (in the target version):
// prune unknown fields, apply defaults, validate. Problems found in metadata
// by the caller are reported together with the schema's, in one 422. old is
// the object an update replaces, in the target version (nil on create):
// an update is validated with ratcheting (see schema.ValidateUpdate), so
// that objects stored before their schema grew stricter stay updatable.
// Errors: BadRequest (unknown fields under Strict), Invalid.
func admit(t Target, name string, obj, old []byte, metaErrs []engine.FieldError, opts WriteOptions) ([]byte, []string, error) {
	s := t.Version.Schema
	obj, removed := s.Prune(obj)
	warnings, err := unknownFields(removed, opts.FieldValidation)
	if err != nil {
		return nil, nil, err
	}
	obj, err = s.Default(obj)
	if err != nil {
		return nil, nil, fmt.Errorf("apply defaults: %w", err)
	}
	schemaErrs := s.Validate(obj)
	// Most updates are valid: ratcheting runs only when there is something
	// it may tolerate, and costs them nothing.
	if old != nil && len(schemaErrs) > 0 {
		schemaErrs = s.ValidateUpdate(obj, old)
	}
	causes := append(metaErrs, schemaErrs...)
	if len(causes) > 0 {
		return nil, nil, engine.NewInvalid(t.Resource.Group, t.Resource.Kind, name, causes)
	}
	return obj, warnings, nil
}

// check runs the target resource's Check, if it has one. Errors: Invalid.
func (s *Service) check(t Target, name string, obj []byte) error {
	c := s.Checks[t.GroupResource()]
	if c == nil {
		return nil
	}
	if causes := c(obj); len(causes) > 0 {
		return engine.NewInvalid(t.Resource.Group, t.Resource.Kind, name, causes)
	}
	return nil
}

// unknownFields turns pruned paths into warnings or, under Strict, a 400 as
// kube-apiserver phrases it.
func unknownFields(removed []string, directive string) ([]string, error) {
	if len(removed) == 0 || directive == FieldValidationIgnore {
		return nil, nil
	}
	msgs := make([]string, len(removed))
	for i, p := range removed {
		msgs[i] = fmt.Sprintf("unknown field %q", p)
	}
	if directive == FieldValidationStrict {
		return nil, engine.Errorf(engine.CodeBadRequest, "strict decoding error: %s", strings.Join(msgs, ", "))
	}
	return msgs, nil
}
