package resource

import (
	"fmt"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/schema"
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
	warnings, err := decodingProblems(t, "unknown", removed, opts.FieldValidation)
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

// duplicateFields keeps the last of the members of body's objects that share
// a key (see schema.DropDuplicates) and reports the others (see
// decodingProblems). It runs before anything reads body. Errors: BadRequest.
func duplicateFields(t Target, body []byte, directive string) ([]byte, []string, error) {
	body, found := schema.DropDuplicates(body)
	warnings, err := decodingProblems(t, "duplicate", found, directive)
	return body, warnings, err
}

// decodingProblems reports the fields a body's decoding found (what:
// "unknown" or "duplicate") as kube-apiserver does: a warning each, none
// under Ignore, or under Strict a 400 in its decoder's words.
func decodingProblems(t Target, what string, paths []string, directive string) ([]string, error) {
	if len(paths) == 0 || directive == FieldValidationIgnore {
		return nil, nil
	}
	msgs := make([]string, len(paths))
	for i, p := range paths {
		msgs[i] = fmt.Sprintf("%s field %q", what, p)
	}
	if directive == FieldValidationStrict {
		kind := t.Resource.Kind
		return nil, engine.Errorf(engine.CodeBadRequest, "%s in version %q cannot be handled as a %s: strict decoding error: %s",
			kind, t.Version.Name, kind, strings.Join(msgs, ", "))
	}
	return msgs, nil
}
