package resource

import (
	"fmt"

	"github.com/dynapi/dynapi/engine"
)

// admit runs the schema steps of a write on obj (in the target version,
// pruned: see admitStage): apply defaults, validate. Problems found in metadata
// by the caller are reported together with the schema's, in one 422. old is
// the object an update replaces, in the target version (nil on create):
// an update is validated with ratcheting (see schema.ValidateUpdate), so
// that objects stored before their schema grew stricter stay updatable.
// Errors: Invalid.
func admit(t Target, name string, obj, old []byte, metaErrs []engine.FieldError) ([]byte, error) {
	s := t.Version.Schema
	obj, err := s.Default(obj)
	if err != nil {
		return nil, fmt.Errorf("apply defaults: %w", err)
	}
	schemaErrs := s.Validate(obj)
	// Most updates are valid: ratcheting runs only when there is something
	// it may tolerate, and costs them nothing.
	if old != nil && len(schemaErrs) > 0 {
		schemaErrs = s.ValidateUpdate(obj, old)
	}
	causes := append(metaErrs, schemaErrs...)
	if len(causes) > 0 {
		return nil, engine.NewInvalid(t.Resource.Group, t.Resource.Kind, name, causes)
	}
	return obj, nil
}
