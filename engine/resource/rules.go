package resource

import (
	"context"
	"fmt"
)

// validationRules is the stage that enforces what a custom resource's
// schema asks beyond OpenAPI, as kube-apiserver does after it: CEL rules
// (x-kubernetes-validations, transition rules on update with ratcheting),
// x-kubernetes-list-type set and map duplicates, embedded resources. The
// schema compiled it all with the definition; a kind without any skips the
// stage before looking at the object. Errors: Invalid.
func validationRules(_ *Service, w *Write) error {
	s := w.Target.Version.Schema
	if !s.HasRules() {
		return nil
	}
	// Why no request context: the rules are bounded by Kubernetes' runtime
	// cost budget, not by the client's patience, as in kube-apiserver.
	causes, err := s.ValidateRules(context.Background(), w.Object, w.Old)
	if err != nil {
		return fmt.Errorf("validation rules: %w", err)
	}
	if len(causes) > 0 {
		return w.invalid(causes)
	}
	return nil
}
