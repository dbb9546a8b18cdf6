package admissionpolicy

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CheckStatic returns why a policy or binding from a file (kind, as JSON)
// is refused: as kube's manifest loader, a name without the
// ".static.k8s.io" suffix, params (a file cannot hold them), a binding
// of a policy without the suffix; and whatever the API refuses. It is
// registry.LoadOptions.CheckAdmission.
func CheckStatic(kind string, doc []byte) []string {
	var o Objects
	if err := o.Add(kind, doc); err != nil {
		return []string{err.Error()}
	}
	o.defaults()
	var errs field.ErrorList
	for _, p := range o.Validating {
		errs = append(errs, staticName(p.Name, p.Spec.ParamKind != nil, "")...)
		errs = append(errs, ValidateValidatingPolicy(p)...)
	}
	for _, p := range o.Mutating {
		errs = append(errs, staticName(p.Name, p.Spec.ParamKind != nil, "")...)
		errs = append(errs, ValidateMutatingPolicy(p)...)
	}
	for _, b := range o.ValidatingBinding {
		errs = append(errs, staticName(b.Name, b.Spec.ParamRef != nil, b.Spec.PolicyName)...)
		errs = append(errs, ValidateValidatingBinding(b)...)
	}
	for _, b := range o.MutatingBinding {
		errs = append(errs, staticName(b.Name, b.Spec.ParamRef != nil, b.Spec.PolicyName)...)
		errs = append(errs, ValidateMutatingBinding(b)...)
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// staticName is kube's manifest constraints: the suffix on the name and
// on a binding's policyName, and no params.
func staticName(name string, params bool, policy string) field.ErrorList {
	var errs field.ErrorList
	if !strings.HasSuffix(name, StaticSuffix) {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, fmt.Sprintf("must end with %q in a file", StaticSuffix)))
	}
	if params {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "params (paramKind, paramRef) are not supported in files"))
	}
	if policy != "" && !strings.HasSuffix(policy, StaticSuffix) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "policyName"), policy, fmt.Sprintf("must end with %q in a file", StaticSuffix)))
	}
	return errs
}
