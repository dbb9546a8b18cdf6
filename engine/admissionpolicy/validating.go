package admissionpolicy

import (
	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"
)

// validatingHook is one ValidatingAdmissionPolicy, compiled, with its
// bindings.
type validatingHook struct {
	policy    *v1.ValidatingAdmissionPolicy
	bindings  []*v1.ValidatingAdmissionPolicyBinding
	evaluator validating.Validator
}

func compileValidating(objs Objects) []*validatingHook {
	bindings := bindingsOf(objs.ValidatingBinding, func(b *v1.ValidatingAdmissionPolicyBinding) string { return b.Spec.PolicyName })
	var out []*validatingHook
	for _, p := range byName(objs.Validating) {
		out = append(out, &validatingHook{policy: p, bindings: bindings[p.Name], evaluator: compileValidator(p)})
	}
	return out
}

// baseEnv is kube's environment for admission policies, at the
// compatibility version kube-apiserver runs with.
var baseEnv = environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())

// compileValidator is kube's validating.compilePolicy (unexported there):
// variables first, then match conditions, validations, audit annotations
// and message expressions, against one composited environment.
func compileValidator(p *v1.ValidatingAdmissionPolicy) validating.Validator {
	hasParams := p.Spec.ParamKind != nil
	opts := cel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	messageOpts := cel.OptionalVariableDeclarations{HasParams: hasParams}
	c, err := cel.NewCompositedCompiler(baseEnv)
	if err != nil {
		return validating.NewValidator(nil, nil, nil, nil, p.Spec.FailurePolicy, err)
	}
	c.CompileAndStoreVariables(variables(p.Spec.Variables), opts, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if len(p.Spec.MatchConditions) > 0 {
		matcher = matchconditions.NewMatcher(c.CompileCondition(matchConditions(p.Spec.MatchConditions), opts, environment.StoredExpressions),
			p.Spec.FailurePolicy, "policy", "validate", p.Name)
	}
	return validating.NewValidator(
		c.CompileCondition(validations(p.Spec.Validations), opts, environment.StoredExpressions),
		matcher,
		c.CompileCondition(auditAnnotations(p.Spec.AuditAnnotations), opts, environment.StoredExpressions),
		c.CompileCondition(messageExpressions(p.Spec.Validations), messageOpts, environment.StoredExpressions),
		p.Spec.FailurePolicy, nil)
}

func variables(vs []v1.Variable) []cel.NamedExpressionAccessor {
	out := make([]cel.NamedExpressionAccessor, len(vs))
	for i, v := range vs {
		out[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	return out
}

func matchConditions(mcs []v1.MatchCondition) []cel.ExpressionAccessor {
	out := make([]cel.ExpressionAccessor, len(mcs))
	for i := range mcs {
		out[i] = (*matchconditions.MatchCondition)(&mcs[i])
	}
	return out
}

func validations(vs []v1.Validation) []cel.ExpressionAccessor {
	out := make([]cel.ExpressionAccessor, len(vs))
	for i, v := range vs {
		out[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
	}
	return out
}

// messageExpressions keeps a nil for a validation without one, so that
// indexes match the validations'.
func messageExpressions(vs []v1.Validation) []cel.ExpressionAccessor {
	out := make([]cel.ExpressionAccessor, len(vs))
	for i, v := range vs {
		if v.MessageExpression != "" {
			out[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	return out
}

func auditAnnotations(as []v1.AuditAnnotation) []cel.ExpressionAccessor {
	out := make([]cel.ExpressionAccessor, len(as))
	for i, a := range as {
		out[i] = &validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return out
}
