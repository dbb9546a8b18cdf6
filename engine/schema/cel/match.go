package cel

import (
	"context"
	"fmt"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// An admission webhook's matchConditions are evaluated by Kubernetes' own
// matcher (k8s.io/apiserver's matchconditions, over its admission CEL
// environment), so that their variables (object, oldObject, request,
// authorizer), cost budget and failure policy are kube's.

// Conditions are one webhook's compiled matchConditions. They are
// immutable and safe for concurrent use.
type Conditions struct {
	matcher matchconditions.Matcher
}

// webhookCompiler is kube's condition compiler for webhooks, built once.
var webhookCompiler = sync.OnceValue(func() plugincel.ConditionCompiler {
	return plugincel.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
})

// CompileConditions compiles a webhook's matchConditions, as kube's
// webhook accessor does (stored expressions: a condition that no longer
// compiles fails at evaluation, under the webhook's failurePolicy).
// typ is "admit" or "validating"; name the webhook's.
func CompileConditions(conds []admissionregistrationv1.MatchCondition, failurePolicy *admissionregistrationv1.FailurePolicyType, typ, name string) *Conditions {
	exprs := make([]plugincel.ExpressionAccessor, len(conds))
	for i, c := range conds {
		exprs[i] = &matchconditions.MatchCondition{Name: c.Name, Expression: c.Expression}
	}
	filter := webhookCompiler().CompileCondition(exprs, plugincel.OptionalVariableDeclarations{HasAuthorizer: true}, environment.StoredExpressions)
	return &Conditions{matcher: matchconditions.NewMatcher(filter, failurePolicy, "webhook", typ, name)}
}

// Match evaluates the conditions over attr, whose object is in kind's
// version, with authz answering their `authorizer` (as kube's webhook
// plug-in passes its authorizer; nil: a condition that uses it fails).
// matches is false when a condition is false (or failed under
// failurePolicy Ignore); err is set when one failed under Fail.
func (c *Conditions) Match(ctx context.Context, attr admission.Attributes, kind schema.GroupVersionKind, authz authorizer.UnconditionalAuthorizer) (matches bool, err error) {
	va := &admission.VersionedAttributes{Attributes: attr, VersionedKind: kind,
		VersionedObject: admission.NewLazyObject(attr.GetObject()), VersionedOldObject: admission.NewLazyObject(attr.GetOldObject())}
	r := c.matcher.Match(ctx, va, nil, authz)
	return r.Matches, r.Error
}

// strictCompiler checks new expressions, as kube's validation of a
// configuration does.
var strictCompiler = sync.OnceValue(func() plugincel.Compiler {
	return plugincel.NewCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
})

// CheckCondition compiles one matchCondition's expression as kube's
// validation does; stored says the expression was accepted before (it is
// then checked against the environment of stored expressions, so that an
// update never fails for what a newer version refuses). It returns the
// problem in kube's words, "" when it compiles; required says the problem
// is a missing value (field.Required) rather than an invalid one.
func CheckCondition(expression string, stored bool) (problem string, required bool) {
	envType := environment.NewExpressions
	if stored {
		envType = environment.StoredExpressions
	}
	r := strictCompiler().CompileCELExpression(&matchconditions.MatchCondition{Expression: expression},
		plugincel.OptionalVariableDeclarations{HasAuthorizer: true}, envType)
	if r.Error == nil {
		return "", false
	}
	switch r.Error.Type {
	case apiservercel.ErrorTypeRequired:
		return r.Error.Detail, true
	case apiservercel.ErrorTypeInvalid:
		return r.Error.Detail, false
	}
	return fmt.Sprintf("Internal error: %v", r.Error), false
}
