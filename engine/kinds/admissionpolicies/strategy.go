// Package admissionpolicies is the strategy of the four admission policy
// kinds (ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their
// bindings), kube-apiserver's: kube's defaults are stored with the
// object, the spec is validated as kube validates it (expressions
// compiled by kube's compiler), and names ending in ".static.k8s.io" are
// refused, being reserved for policies from files.
package admissionpolicies

import (
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admissionpolicy"
	"github.com/dynapi/dynapi/engine/meta"
	"github.com/dynapi/dynapi/engine/resource"
)

// Group is the API group of the kinds.
const Group = "admissionregistration.k8s.io"

// Register makes service serve the four kinds with their strategies
// (ValidatingAdmissionPolicy's validates writes of its /status too),
// and returns the controller that writes ValidatingAdmissionPolicies'
// status, to run beside it.
func Register(service *resource.Service) *StatusController {
	vap := newStrategy(admissionpolicy.DefaultValidatingPolicy, admissionpolicy.ValidateValidatingPolicy,
		func(p *v1.ValidatingAdmissionPolicy) any { return p.Spec })
	vap.validateStatus = func(body []byte) (field.ErrorList, error) {
		p, err := decode[v1.ValidatingAdmissionPolicy](body)
		if err != nil {
			return nil, err
		}
		return admissionpolicy.ValidateValidatingPolicyStatus(&p.Status), nil
	}
	service.Register(engine.GroupResource{Group: Group, Resource: "validatingadmissionpolicies"}, vap)
	register(service, "validatingadmissionpolicybindings", admissionpolicy.DefaultValidatingBinding, admissionpolicy.ValidateValidatingBinding,
		func(b *v1.ValidatingAdmissionPolicyBinding) any { return b.Spec })
	register(service, "mutatingadmissionpolicies", admissionpolicy.DefaultMutatingPolicy, admissionpolicy.ValidateMutatingPolicy,
		func(p *v1.MutatingAdmissionPolicy) any { return p.Spec })
	register(service, "mutatingadmissionpolicybindings", admissionpolicy.DefaultMutatingBinding, admissionpolicy.ValidateMutatingBinding,
		func(b *v1.MutatingAdmissionPolicyBinding) any { return b.Spec })
	return newStatusController(service)
}

func register[T any](service *resource.Service, plural string, defaults func(*T), validate func(*T) field.ErrorList, spec func(*T) any) {
	service.Register(engine.GroupResource{Group: Group, Resource: plural}, newStrategy(defaults, validate, spec))
}

func newStrategy[T any](defaults func(*T), validate func(*T) field.ErrorList, spec func(*T) any) Strategy {
	return Strategy{
		defaults: func(body []byte) (any, error) {
			obj, err := decode[T](body)
			if err != nil {
				return nil, err
			}
			defaults(obj)
			return spec(obj), nil
		},
		validate: func(body []byte) (field.ErrorList, error) {
			obj, err := decode[T](body)
			if err != nil {
				return nil, err
			}
			defaults(obj) // what was stored before this strategy was: as kube reads it
			return validate(obj), nil
		},
	}
}

func decode[T any](body []byte) (*T, error) {
	obj := new(T)
	if err := json.Unmarshal(body, obj); err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "decode object: %v", err)
	}
	return obj, nil
}

// Strategy is the strategy of one of the four kinds.
type Strategy struct {
	resource.CustomResource
	// defaults returns the spec of a body with kube's defaults.
	defaults func(body []byte) (spec any, err error)
	// validate returns kube's errors for a body.
	validate func(body []byte) (field.ErrorList, error)
	// validateStatus returns kube's errors for a body written through
	// /status; nil for a kind without a status.
	validateStatus func(body []byte) (field.ErrorList, error)
}

var _ resource.Strategy = Strategy{}

// PrepareForCreate stores kube's defaults with the object.
func (s Strategy) PrepareForCreate(w *resource.Write) error {
	if err := s.CustomResource.PrepareForCreate(w); err != nil {
		return err
	}
	return s.setDefaults(w)
}

// PrepareForUpdate stores kube's defaults with the object.
func (s Strategy) PrepareForUpdate(w *resource.Write) error {
	if err := s.CustomResource.PrepareForUpdate(w); err != nil {
		return err
	}
	return s.setDefaults(w)
}

func (s Strategy) setDefaults(w *resource.Write) error {
	if !gjson.GetBytes(w.Object, "spec").IsObject() {
		return nil // the schema refuses it
	}
	spec, err := s.defaults(w.Object)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("encode spec: %w", err)
	}
	w.Object, err = sjson.SetRawBytes(w.Object, "spec", raw)
	return err
}

// Validate returns kube's errors for the spec, and refuses the names
// reserved for policies from files on create.
func (s Strategy) Validate(w *resource.Write) ([]engine.FieldError, []string) {
	if w.Target.Subresource == "status" {
		return s.validateStatusOf(w), nil
	}
	var errs field.ErrorList
	if w.Operation == resource.CreateOperation {
		errs = admissionpolicy.ValidateName(w.Name)
	}
	more, err := s.validate(w.Object)
	if err != nil {
		return []engine.FieldError{{Type: engine.CauseInvalid, Path: "spec", Message: err.Error()}}, nil
	}
	return meta.FieldErrors(append(errs, more...)), nil
}

// validateStatusOf returns kube's errors for a status write: the status
// alone, as kube's status strategy validates it (the spec is the stored
// one).
func (s Strategy) validateStatusOf(w *resource.Write) []engine.FieldError {
	if s.validateStatus == nil {
		return nil
	}
	errs, err := s.validateStatus(w.Object)
	if err != nil {
		return []engine.FieldError{{Type: engine.CauseInvalid, Path: "status", Message: err.Error()}}
	}
	return meta.FieldErrors(errs)
}
