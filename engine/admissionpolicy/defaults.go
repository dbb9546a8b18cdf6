package admissionpolicy

import (
	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The defaults below are kube's (pkg/apis/admissionregistration/v1
// defaults.go, in k8s.io/kubernetes, which a module cannot import): what
// kube-apiserver fills in before it stores a policy or binding, and what a
// Set relies on.

// DefaultValidatingPolicy fills in p's defaults.
func DefaultValidatingPolicy(p *v1.ValidatingAdmissionPolicy) {
	defaultFailurePolicy(&p.Spec.FailurePolicy)
	defaultMatchResources(p.Spec.MatchConstraints)
}

// DefaultMutatingPolicy fills in p's defaults.
func DefaultMutatingPolicy(p *v1.MutatingAdmissionPolicy) {
	defaultFailurePolicy(&p.Spec.FailurePolicy)
	defaultMatchResources(p.Spec.MatchConstraints)
}

// DefaultValidatingBinding fills in b's defaults.
func DefaultValidatingBinding(b *v1.ValidatingAdmissionPolicyBinding) {
	defaultMatchResources(b.Spec.MatchResources)
}

// DefaultMutatingBinding fills in b's defaults.
func DefaultMutatingBinding(b *v1.MutatingAdmissionPolicyBinding) {
	defaultMatchResources(b.Spec.MatchResources)
}

func defaultFailurePolicy(p **v1.FailurePolicyType) {
	if *p == nil {
		fail := v1.Fail
		*p = &fail
	}
}

func defaultMatchResources(m *v1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		equivalent := v1.Equivalent
		m.MatchPolicy = &equivalent
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]v1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				all := v1.AllScopes
				rules[i].Scope = &all
			}
		}
	}
}
