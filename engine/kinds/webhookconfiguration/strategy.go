// Package webhookconfiguration is the strategy of
// admissionregistration.k8s.io's ValidatingWebhookConfiguration and
// MutatingWebhookConfiguration, kube-apiserver's: kube's defaults are
// stored (failurePolicy Fail, matchPolicy Equivalent, empty selectors,
// timeoutSeconds 10, reinvocationPolicy Never, rules' scope "*", a
// service's port 443), and a configuration is validated as
// k8s.io/kubernetes' pkg/apis/admissionregistration/validation validates
// it, with its messages and field paths. The webhooks themselves are
// called by engine/admissionwebhook.
package webhookconfiguration

import (
	"encoding/json"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admissionwebhook"
	"github.com/dynapi/dynapi/engine/resource"
)

// The resources the Strategy serves.
var (
	Validating = engine.GroupResource{Group: admissionwebhook.Group, Resource: "validatingwebhookconfigurations"}
	Mutating   = engine.GroupResource{Group: admissionwebhook.Group, Resource: "mutatingwebhookconfigurations"}
)

// Strategy is the strategy of one of the two kinds.
type Strategy struct {
	resource.CustomResource
	mutating bool
}

var _ resource.Strategy = Strategy{}

// Register makes service serve both kinds with their strategies.
func Register(service *resource.Service) {
	service.Register(Validating, Strategy{})
	service.Register(Mutating, Strategy{mutating: true})
}

// AllowUnconditionalUpdate is true, as for kube-apiserver's kinds.
func (Strategy) AllowUnconditionalUpdate() bool { return true }

// PrepareForCreate stores kube's defaults.
func (s Strategy) PrepareForCreate(w *resource.Write) error { return s.setDefaults(w) }

// PrepareForUpdate stores kube's defaults.
func (s Strategy) PrepareForUpdate(w *resource.Write) error { return s.setDefaults(w) }

// Validate checks the configuration as kube does; an update is held to
// what the stored configuration already met (kube's ratcheting of
// sideEffects, admissionReviewVersions, unique names and expressions).
func (s Strategy) Validate(w *resource.Write) ([]engine.FieldError, []string) {
	hooks, err := webhooks(w.Object)
	if err != nil {
		return []engine.FieldError{{Type: engine.CauseInvalid, Path: "webhooks", Message: err.Error()}}, nil
	}
	opts := strict
	if w.Old != nil {
		old, err := webhooks(w.Old)
		if err == nil {
			opts = ratcheted(old)
		}
	}
	return validate(hooks, s.mutating, opts), nil
}

// webhooks decodes a configuration's webhooks (a ValidatingWebhook's
// fields are a MutatingWebhook's).
func webhooks(obj []byte) ([]admissionregistrationv1.MutatingWebhook, error) {
	var c struct {
		Webhooks []admissionregistrationv1.MutatingWebhook `json:"webhooks"`
	}
	if err := json.Unmarshal(obj, &c); err != nil {
		return nil, fmt.Errorf("decode webhooks: %w", err)
	}
	return c.Webhooks, nil
}
