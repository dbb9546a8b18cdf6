package admissionpolicy

import v1 "k8s.io/api/admissionregistration/v1"

// mutatingHook is one MutatingAdmissionPolicy, compiled, with its
// bindings.
type mutatingHook struct {
	policy   *v1.MutatingAdmissionPolicy
	bindings []*v1.MutatingAdmissionPolicyBinding
}

func compileMutating(objs Objects) []*mutatingHook { return nil }
