package admissionpolicy

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Objects are the policy objects a Set is compiled from, in kube's v1
// shape. Static ones come from files (kube's manifest-based admission
// control, KEP-5793): they are evaluated before those stored through the
// API, and may guard the admission objects themselves.
type Objects struct {
	Validating        []*v1.ValidatingAdmissionPolicy
	ValidatingBinding []*v1.ValidatingAdmissionPolicyBinding
	Mutating          []*v1.MutatingAdmissionPolicy
	MutatingBinding   []*v1.MutatingAdmissionPolicyBinding
}

// Set is a compiled snapshot of policies and bindings: every CEL
// expression is compiled once, here, never per request. It is immutable
// and safe for concurrent use.
type Set struct {
	static, api hooks
}

// hooks are compiled policies of one origin.
type hooks struct {
	validating []*validatingHook
	mutating   []*mutatingHook
}

// Compile compiles static and api policies, static ones first, each
// group in name order (kube's composite policy source). A policy that
// does not compile is kept with its error, which its failurePolicy
// applies to every request it matches, as kube does; a binding whose
// policy is absent binds nothing. Compile fills in kube's defaults (see
// DefaultValidatingPolicy) in the objects, which it keeps.
func Compile(static, api Objects) *Set {
	static.defaults()
	api.defaults()
	return &Set{
		static: hooks{compileValidating(static), compileMutating(static)},
		api:    hooks{compileValidating(api), compileMutating(api)},
	}
}

func (o Objects) defaults() {
	for _, p := range o.Validating {
		DefaultValidatingPolicy(p)
	}
	for _, b := range o.ValidatingBinding {
		DefaultValidatingBinding(b)
	}
	for _, p := range o.Mutating {
		DefaultMutatingPolicy(p)
	}
	for _, b := range o.MutatingBinding {
		DefaultMutatingBinding(b)
	}
}

// configResources are the admission policy resources, which policies
// stored through the API never guard (kube: a policy must not be able to
// lock itself in); static ones do.
var configResources = map[schema.GroupResource]bool{
	{Group: v1.GroupName, Resource: "validatingadmissionpolicies"}:       true,
	{Group: v1.GroupName, Resource: "validatingadmissionpolicybindings"}: true,
	{Group: v1.GroupName, Resource: "mutatingadmissionpolicies"}:         true,
	{Group: v1.GroupName, Resource: "mutatingadmissionpolicybindings"}:   true,
}

// validatingFor returns the validating hooks that may guard gr, static
// ones first.
func (s *Set) validatingFor(gr schema.GroupResource) []*validatingHook {
	if configResources[gr] {
		return s.static.validating
	}
	return append(slices.Clip(s.static.validating), s.api.validating...)
}

// mutatingFor is validatingFor for mutating hooks.
func (s *Set) mutatingFor(gr schema.GroupResource) []*mutatingHook {
	if configResources[gr] {
		return s.static.mutating
	}
	return append(slices.Clip(s.static.mutating), s.api.mutating...)
}

// byName sorts objects by name.
func byName[T interface{ GetName() string }](items []T) []T {
	out := slices.Clone(items)
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(a.GetName(), b.GetName()) })
	return out
}

// bindingsOf groups bindings by the policy they name, in name order.
func bindingsOf[B interface{ GetName() string }](bindings []B, policyName func(B) string) map[string][]B {
	out := map[string][]B{}
	for _, b := range byName(bindings) {
		out[policyName(b)] = append(out[policyName(b)], b)
	}
	return out
}

// Add decodes body, an object of kind (one of the four policy kinds, as
// JSON), into o. Errors: a body that is not that kind's.
func (o *Objects) Add(kind string, body []byte) error {
	var err error
	switch kind {
	case "ValidatingAdmissionPolicy":
		o.Validating, err = decodeAppend(o.Validating, body)
	case "ValidatingAdmissionPolicyBinding":
		o.ValidatingBinding, err = decodeAppend(o.ValidatingBinding, body)
	case "MutatingAdmissionPolicy":
		o.Mutating, err = decodeAppend(o.Mutating, body)
	case "MutatingAdmissionPolicyBinding":
		o.MutatingBinding, err = decodeAppend(o.MutatingBinding, body)
	default:
		return fmt.Errorf("%q is not an admission policy kind", kind)
	}
	return err
}

func decodeAppend[T any](list []*T, body []byte) ([]*T, error) {
	v := new(T)
	if err := json.Unmarshal(body, v); err != nil {
		return list, err
	}
	return append(list, v), nil
}

// Clone returns a deep copy of o: Compile fills in defaults in what it
// is given.
func (o Objects) Clone() Objects {
	return Objects{Validating: cloneAll(o.Validating), ValidatingBinding: cloneAll(o.ValidatingBinding),
		Mutating: cloneAll(o.Mutating), MutatingBinding: cloneAll(o.MutatingBinding)}
}

func cloneAll[T interface{ DeepCopy() T }](list []T) []T {
	out := make([]T, len(list))
	for i, v := range list {
		out[i] = v.DeepCopy()
	}
	return out
}
