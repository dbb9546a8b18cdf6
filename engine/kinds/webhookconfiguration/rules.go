package webhookconfiguration

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine/schema/cel"
)

// validateRule is kube's validateRuleWithOperations.
func validateRule(r *admissionregistrationv1.RuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(p.Child("operations"), ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, admissionregistrationv1.OperationAll) {
		errs = append(errs, field.Invalid(p.Child("operations"), r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		errs = append(errs, notSupported(p.Child("operations").Index(i), (*string)(&op), operations)...)
	}
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(p.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		errs = append(errs, field.Invalid(p.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateResources(r.Resources, p.Child("resources"))...)
	return append(errs, notSupported(p.Child("scope"), (*string)(r.Scope), scopes)...)
}

// validateResources is kube's: "x/*" excludes "x/y", "*/y" excludes
// "x/y", "*/*" stands alone, "*" excludes resources without subresource.
func validateResources(resources []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	anySub, anyRes := sets.New[string](), sets.New[string]() // x of x/*, y of */y
	var single, bare bool
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		}
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			single, bare = single || rs == "*", rs != "*"
			continue
		}
		if anySub.Has(res) {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if anyRes.Has(sub) {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			anySub.Insert(res)
		}
		if res == "*" {
			anyRes.Insert(sub)
		}
	}
	if len(resources) > 1 && slices.Contains(resources, "*/*") {
		errs = append(errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if single && bare {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateReviewVersions is kube's validateAdmissionReviewVersions.
func validateReviewVersions(versions []string, requireRecognized bool, p *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, fmt.Sprintf("must specify one of %v", acceptedVersionsMessage))}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, v := range versions {
		if seen.Has(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen.Insert(v)
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, msg))
		}
	}
	if requireRecognized && !slices.ContainsFunc(versions, accepted.Has) {
		errs = append(errs, field.Invalid(p, versions, fmt.Sprintf("must include at least one of %v", acceptedVersionsMessage)))
	}
	return errs
}

// validateMatchConditions is kube's: at most 64, names unique qualified
// names, expressions that compile (see cel.CheckCondition).
func validateMatchConditions(conds []admissionregistrationv1.MatchCondition, o options, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > 64 {
		errs = append(errs, field.TooMany(p, len(conds), 64))
	}
	names := sets.New[string]()
	for i, c := range conds {
		cp := p.Index(i)
		if expr := strings.TrimSpace(c.Expression); expr == "" {
			errs = append(errs, field.Required(cp.Child("expression"), ""))
		} else if problem, required := cel.CheckCondition(expr, o.stored.Has(expr)); problem != "" && required {
			errs = append(errs, field.Required(cp.Child("expression"), problem))
		} else if problem != "" {
			errs = append(errs, field.Invalid(cp.Child("expression"), expr, problem))
		}
		if c.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		} else {
			for _, msg := range content.IsLabelKey(c.Name) { // a qualified name
				errs = append(errs, field.Invalid(cp.Child("name"), c.Name, msg))
			}
		}
		if c.Name != "" && names.Has(c.Name) {
			errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
		}
		names.Insert(c.Name)
	}
	return errs
}
