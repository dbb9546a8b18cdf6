package admissionpolicy

import (
	"fmt"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// mutatingHook is one MutatingAdmissionPolicy, compiled, with its
// bindings.
type mutatingHook struct {
	policy   *v1.MutatingAdmissionPolicy
	bindings []*v1.MutatingAdmissionPolicyBinding
	mutator
}

// mutator is kube's mutating.PolicyEvaluator: match conditions, one
// patcher per mutation, and the compiler whose context carries the
// variables.
type mutator struct {
	matcher  matchconditions.Matcher
	patchers []patch.Patcher
	compiler *cel.CompositedCompiler
	err      error
}

func compileMutating(objs Objects) []*mutatingHook {
	bindings := bindingsOf(objs.MutatingBinding, func(b *v1.MutatingAdmissionPolicyBinding) string { return b.Spec.PolicyName })
	var out []*mutatingHook
	for _, p := range byName(objs.Mutating) {
		out = append(out, &mutatingHook{policy: p, bindings: bindings[p.Name], mutator: compileMutator(p)})
	}
	return out
}

// compileMutator is kube's mutating.compilePolicy (unexported there).
func compileMutator(p *v1.MutatingAdmissionPolicy) mutator {
	opts := cel.OptionalVariableDeclarations{HasParams: p.Spec.ParamKind != nil, HasAuthorizer: true}
	c, err := cel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return mutator{err: &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: fmt.Sprintf("failed to initialize CEL compiler: %v", err)}}
	}
	c.CompileAndStoreVariables(mutatingVariables(p.Spec.Variables), opts, environment.StoredExpressions)
	m := mutator{compiler: c}
	if len(p.Spec.MatchConditions) > 0 {
		m.matcher = matchconditions.NewMatcher(c.CompileCondition(matchConditions(p.Spec.MatchConditions), opts, environment.StoredExpressions),
			p.Spec.FailurePolicy, "policy", "validate", p.Name)
	}
	patchOpts := opts
	patchOpts.HasPatchTypes = true
	for _, mu := range p.Spec.Mutations {
		switch {
		case mu.PatchType == v1.PatchTypeJSONPatch && mu.JSONPatch != nil:
			e := c.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: mu.JSONPatch.Expression}, patchOpts, environment.StoredExpressions)
			m.patchers = append(m.patchers, patch.NewJSONPatcher(e))
		case mu.PatchType == v1.PatchTypeApplyConfiguration && mu.ApplyConfiguration != nil:
			e := c.CompileMutatingEvaluator(&patch.ApplyConfigurationCondition{Expression: mu.ApplyConfiguration.Expression}, patchOpts, environment.StoredExpressions)
			m.patchers = append(m.patchers, patch.NewApplyConfigurationPatcher(e))
		}
	}
	return m
}

// mutatingVariables are kube's: nil for none.
func mutatingVariables(vs []v1.Variable) []cel.NamedExpressionAccessor {
	if vs == nil {
		return nil
	}
	out := make([]cel.NamedExpressionAccessor, len(vs))
	for i, v := range vs {
		out[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	return out
}
