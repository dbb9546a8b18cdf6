package admissionpolicy

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// The checks below are kube-apiserver's (k8s.io/kubernetes
// pkg/apis/admissionregistration/validation, which a module cannot
// import), with its paths and texts, for the fields that decide what a
// policy does; expressions are compiled by kube's compiler, as there.

// StaticSuffix is the name suffix reserved for policies from files
// (kube's manifest-based admission control, KEP-5793).
const StaticSuffix = ".static.k8s.io"

// ValidateName refuses a name with the reserved suffix through the API,
// as kube's ValidateStaticSuffix does.
func ValidateName(name string) field.ErrorList {
	if strings.HasSuffix(name, StaticSuffix) {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), name,
			fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", StaticSuffix))}
	}
	return nil
}

var (
	failurePolicies   = []string{string(v1.Fail), string(v1.Ignore)}
	matchPolicies     = []string{string(v1.Equivalent), string(v1.Exact)}
	validationActions = []string{string(v1.Audit), string(v1.Deny), string(v1.Warn)}
	notFoundActions   = []string{string(v1.AllowAction), string(v1.DenyAction)}
	reinvocations     = []string{string(v1.IfNeededReinvocationPolicy), string(v1.NeverReinvocationPolicy)}
	patchTypes        = []string{string(v1.PatchTypeApplyConfiguration), string(v1.PatchTypeJSONPatch)}
)

// ValidateValidatingPolicy returns what kube refuses in p's spec.
func ValidateValidatingPolicy(p *v1.ValidatingAdmissionPolicy) field.ErrorList {
	s, path := &p.Spec, field.NewPath("spec")
	errs := validateHead(s.FailurePolicy, s.ParamKind, s.MatchConstraints, path)
	c := newChecker(s.ParamKind != nil)
	errs = append(errs, c.variables(s.Variables, path.Child("variables"))...)
	errs = append(errs, c.matchConditions(s.MatchConditions, path.Child("matchConditions"))...)
	if len(s.Validations) == 0 && len(s.AuditAnnotations) == 0 {
		return append(errs,
			field.Required(path.Child("validations"), "validations or auditAnnotations must contain at least one item"),
			field.Required(path.Child("auditAnnotations"), "validations or auditAnnotations must contain at least one item"))
	}
	for i, v := range s.Validations {
		p := path.Child("validations").Index(i)
		errs = append(errs, c.expression(&validating.ValidationCondition{Expression: v.Expression}, p.Child("expression"), c.opts)...)
		if strings.TrimSpace(v.MessageExpression) != "" {
			errs = append(errs, c.expression(&validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}, p.Child("messageExpression"), c.messageOpts)...)
		}
	}
	keys := map[string]bool{}
	for i, a := range s.AuditAnnotations {
		p := path.Child("auditAnnotations").Index(i)
		if keys[a.Key] {
			errs = append(errs, field.Duplicate(p.Child("key"), a.Key))
		}
		keys[a.Key] = true
		errs = append(errs, c.expression(&validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}, p.Child("valueExpression"), c.opts)...)
	}
	return errs
}

// ValidateMutatingPolicy returns what kube refuses in p's spec.
func ValidateMutatingPolicy(p *v1.MutatingAdmissionPolicy) field.ErrorList {
	s, path := &p.Spec, field.NewPath("spec")
	errs := validateHead(s.FailurePolicy, s.ParamKind, s.MatchConstraints, path)
	c := newChecker(s.ParamKind != nil)
	errs = append(errs, c.variables(s.Variables, path.Child("variables"))...)
	errs = append(errs, c.matchConditions(s.MatchConditions, path.Child("matchConditions"))...)
	if len(s.Mutations) == 0 {
		errs = append(errs, field.Required(path.Child("mutations"), "mutations must contain at least one item"))
	}
	for i := range s.Mutations {
		errs = append(errs, c.mutation(&s.Mutations[i], path.Child("mutations").Index(i))...)
	}
	errs = append(errs, oneOf(string(s.ReinvocationPolicy), reinvocations, path.Child("reinvocationPolicy"))...)
	return errs
}

// ValidateValidatingBinding returns what kube refuses in b's spec.
func ValidateValidatingBinding(b *v1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	path := field.NewPath("spec")
	errs := validateBindingHead(b.Spec.PolicyName, b.Spec.ParamRef, b.Spec.MatchResources, path)
	p := path.Child("validationActions")
	seen := map[v1.ValidationAction]bool{}
	for i, a := range b.Spec.ValidationActions {
		if !slices.Contains(validationActions, string(a)) {
			errs = append(errs, field.NotSupported(p.Index(i), a, validationActions))
		}
		if seen[a] {
			errs = append(errs, field.Duplicate(p.Index(i), a))
		}
		seen[a] = true
	}
	if seen[v1.Deny] && seen[v1.Warn] {
		errs = append(errs, field.Invalid(p, b.Spec.ValidationActions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		errs = append(errs, field.Required(p, "at least one validation action is required"))
	}
	return errs
}

// ValidateMutatingBinding returns what kube refuses in b's spec.
func ValidateMutatingBinding(b *v1.MutatingAdmissionPolicyBinding) field.ErrorList {
	return validateBindingHead(b.Spec.PolicyName, b.Spec.ParamRef, b.Spec.MatchResources, field.NewPath("spec"))
}

func validateHead(fp *v1.FailurePolicyType, kind *v1.ParamKind, mc *v1.MatchResources, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if fp == nil {
		errs = append(errs, field.Required(path.Child("failurePolicy"), ""))
	} else {
		errs = append(errs, oneOf(string(*fp), failurePolicies, path.Child("failurePolicy"))...)
	}
	if kind != nil {
		if kind.APIVersion == "" {
			errs = append(errs, field.Required(path.Child("paramKind", "apiVersion"), ""))
		}
		if kind.Kind == "" {
			errs = append(errs, field.Required(path.Child("paramKind", "kind"), ""))
		}
	}
	if mc == nil {
		return append(errs, field.Required(path.Child("matchConstraints"), ""))
	}
	errs = append(errs, validateMatchResources(mc, path.Child("matchConstraints"))...)
	if len(mc.ResourceRules) == 0 {
		errs = append(errs, field.Required(path.Child("matchConstraints", "resourceRules"), ""))
	}
	return errs
}

func validateBindingHead(policy string, ref *v1.ParamRef, mr *v1.MatchResources, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if policy == "" {
		errs = append(errs, field.Required(path.Child("policyName"), ""))
	}
	if ref != nil {
		p := path.Child("paramRef")
		if ref.Name != "" && ref.Selector != nil {
			errs = append(errs, field.Forbidden(p.Child("name"), `name and selector are mutually exclusive`),
				field.Forbidden(p.Child("selector"), `name and selector are mutually exclusive`))
		}
		if ref.Name == "" && ref.Selector == nil {
			errs = append(errs, field.Required(p, `one of name or selector must be specified`))
		}
		if ref.ParameterNotFoundAction == nil || *ref.ParameterNotFoundAction == "" {
			errs = append(errs, field.Required(p.Child("parameterNotFoundAction"), ""))
		} else {
			errs = append(errs, oneOf(string(*ref.ParameterNotFoundAction), notFoundActions, p.Child("parameterNotFoundAction"))...)
		}
	}
	if mr != nil {
		errs = append(errs, validateMatchResources(mr, path.Child("matchResources"))...)
	}
	return errs
}

func validateMatchResources(mc *v1.MatchResources, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if mc.MatchPolicy == nil {
		errs = append(errs, field.Required(path.Child("matchPolicy"), ""))
	} else {
		errs = append(errs, oneOf(string(*mc.MatchPolicy), matchPolicies, path.Child("matchPolicy"))...)
	}
	opts := metav1validation.LabelSelectorValidationOptions{}
	errs = append(errs, metav1validation.ValidateLabelSelector(mc.NamespaceSelector, opts, path.Child("namespaceSelector"))...)
	errs = append(errs, metav1validation.ValidateLabelSelector(mc.ObjectSelector, opts, path.Child("objectSelector"))...)
	return errs
}

func oneOf(value string, supported []string, path *field.Path) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	if !slices.Contains(supported, value) {
		return field.ErrorList{field.NotSupported(path, value, supported)}
	}
	return nil
}

// checker compiles a policy's expressions with kube's compiler, its
// variables first, as kube's validation does.
type checker struct {
	c                 *cel.CompositedCompiler
	opts, messageOpts cel.OptionalVariableDeclarations
}

func newChecker(hasParams bool) *checker {
	c, err := cel.NewCompositedCompiler(baseEnv)
	if err != nil {
		panic(fmt.Sprintf("kube's CEL environment: %v", err)) // it is built from constants
	}
	return &checker{c: c, opts: cel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true},
		messageOpts: cel.OptionalVariableDeclarations{HasParams: hasParams}}
}

func (c *checker) variables(vs []v1.Variable, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, v := range vs {
		p := path.Index(i)
		if strings.TrimSpace(v.Name) == "" {
			errs = append(errs, field.Required(p.Child("name"), "name is not specified"))
		}
		if strings.TrimSpace(v.Expression) == "" {
			errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
			continue
		}
		res := c.c.CompileAndStoreVariable(&validating.Variable{Name: v.Name, Expression: v.Expression}, c.opts, environment.NewExpressions)
		if res.Error != nil {
			errs = append(errs, celError(p.Child("expression"), v.Expression, res.Error))
		}
	}
	return errs
}

func (c *checker) matchConditions(mcs []v1.MatchCondition, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range mcs {
		p := path.Index(i)
		if mcs[i].Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else if names[mcs[i].Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), mcs[i].Name))
		}
		names[mcs[i].Name] = true
		errs = append(errs, c.expression((*matchconditions.MatchCondition)(&mcs[i]), p.Child("expression"), c.opts)...)
	}
	return errs
}

func (c *checker) mutation(m *v1.Mutation, path *field.Path) field.ErrorList {
	errs := oneOf(string(m.PatchType), patchTypes, path.Child("patchType"))
	opts := c.opts
	opts.HasPatchTypes = true
	switch {
	case m.PatchType == v1.PatchTypeJSONPatch && m.JSONPatch == nil:
		errs = append(errs, field.Required(path.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
	case m.PatchType == v1.PatchTypeJSONPatch:
		errs = append(errs, c.expression(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, path.Child("jsonPatch", "expression"), opts)...)
	case m.PatchType == v1.PatchTypeApplyConfiguration && m.ApplyConfiguration == nil:
		errs = append(errs, field.Required(path.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
	case m.PatchType == v1.PatchTypeApplyConfiguration:
		errs = append(errs, c.expression(&patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}, path.Child("applyConfiguration", "expression"), opts)...)
	}
	return errs
}

// expression compiles one expression: required, then kube's compile
// and cost errors.
func (c *checker) expression(e cel.ExpressionAccessor, path *field.Path, opts cel.OptionalVariableDeclarations) field.ErrorList {
	if strings.TrimSpace(e.GetExpression()) == "" {
		return field.ErrorList{field.Required(path, "expression is not specified")}
	}
	res := c.c.CompileCELExpression(e, opts, environment.NewExpressions)
	if res.Error != nil {
		return field.ErrorList{celError(path, e.GetExpression(), res.Error)}
	}
	return nil
}

// celError is kube's convertCELErrorToValidationError.
func celError(path *field.Path, expression string, err *apiservercel.Error) *field.Error {
	switch err.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(path, err.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(path, expression, err.Detail)
	}
	return field.InternalError(path, err)
}
