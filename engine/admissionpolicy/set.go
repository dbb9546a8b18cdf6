package admissionpolicy

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/admissionregistration/v1"
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
	validating []*validatingHook
	mutating   []*mutatingHook
}

// Compile compiles static and api policies, static ones first, each
// group in name order (kube's composite policy source). A policy that
// does not compile is kept with its error, which its failurePolicy
// applies to every request it matches, as kube does; a binding whose
// policy is absent binds nothing.
func Compile(static, api Objects) *Set {
	s := &Set{}
	for _, objs := range []Objects{static, api} {
		s.validating = append(s.validating, compileValidating(objs)...)
		s.mutating = append(s.mutating, compileMutating(objs)...)
	}
	return s
}

// Empty reports whether s holds no policy: a write then pays nothing.
func (s *Set) Empty() bool { return s == nil || len(s.validating) == 0 && len(s.mutating) == 0 }

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
