package admissionpolicy

import (
	"context"
	"fmt"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	admissionauthorizer "k8s.io/apiserver/pkg/admission/plugin/authorizer"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Result is what admission policies add to a write they let through:
// warnings for the client (validationActions Warn) and annotations for
// the audit log (auditAnnotations, and Audit's validation failures).
type Result struct {
	Warnings    []string
	Annotations map[string]string
}

func (r *Result) annotate(key, value string) {
	if r.Annotations == nil {
		r.Annotations = map[string]string{}
	}
	r.Annotations[key] = value
}

// Validate runs every ValidatingAdmissionPolicy of s that matches a, as
// kube's ValidatingAdmissionPolicy plug-in does. It returns kube's
// denial (an *apierrors.StatusError: `ValidatingAdmissionPolicy 'p'
// with binding 'b' denied request: …`) for the first Deny, or the
// warnings and audit annotations of the request.
func (s *Set) Validate(ctx context.Context, a admission.Attributes, env Env) (Result, error) {
	if s == nil {
		return Result{}, nil
	}
	hooks := s.validatingFor(a.GetResource().GroupResource())
	if len(hooks) == 0 {
		return Result{}, nil
	}
	d := &validation{request: newRequest(ctx, env, a)}
	d.authz = admissionauthorizer.NewCachingAuthorizer(env.Authorizer())
	for _, h := range hooks {
		if err := d.hook(h); err != nil {
			return Result{}, err
		}
	}
	d.publishFailures()
	return d.result, d.denial()
}

// validation is one request's run through the validating policies:
// kube's validating dispatcher, with its state as fields.
type validation struct {
	*request
	authz    authorizer.UnconditionalAuthorizer
	denied   []decision
	failures []validating.ValidationFailureValue
	result   Result
}

// decision is a denial with the policy and binding that made it.
type decision struct {
	validating.PolicyDecision
	policy  *v1.ValidatingAdmissionPolicy
	binding *v1.ValidatingAdmissionPolicyBinding
}

// hook runs one policy with each of its bindings that matches.
func (d *validation) hook(h *validatingHook) error {
	o := d.objectInterfaces()
	matches, resource, kind, err := d.matcher.DefinitionMatches(d.attrs, o, validating.NewValidatingAdmissionPolicyAccessor(h.policy))
	switch {
	case err != nil:
		d.configError(err, h.policy, nil)
		return nil
	case !matches:
		return nil
	case h.evaluator.CompileError() != nil:
		d.configError(h.evaluator.CompileError(), h.policy, nil)
		return nil
	}
	annotations := newAnnotationCollector()
	for _, b := range h.bindings {
		if err := d.binding(h, b, resource, kind, annotations); err != nil {
			return err
		}
	}
	annotations.publish(h.policy.Name, &d.result)
	return nil
}

// binding evaluates a policy for one binding, once per param.
func (d *validation) binding(h *validatingHook, b *v1.ValidatingAdmissionPolicyBinding, resource schema.GroupVersionResource, kind schema.GroupVersionKind, annotations annotationCollector) error {
	o := d.objectInterfaces()
	matches, err := d.matcher.BindingMatches(d.attrs, o, validating.NewValidatingAdmissionPolicyBindingAccessor(b))
	if err != nil {
		d.configError(err, h.policy, b)
		return nil
	}
	if !matches {
		return nil
	}
	params, err := d.collectParams(h.policy.Spec.ParamKind, b.Spec.ParamRef, d.attrs.GetNamespace())
	if err != nil {
		d.configError(err, h.policy, b)
		return nil
	}
	va, err := d.versionedAttributes(kind)
	if err != nil {
		d.configError(fmt.Errorf("failed to convert object version: %w", err), h.policy, b)
		return nil
	}
	ns, err := d.namespaceObject(d.attrs)
	if err != nil {
		return err
	}
	for _, p := range params {
		res := h.evaluator.Validate(d.ctx, resource, va, withTypeMeta(p, h.policy.Spec.ParamKind), ns, celconfig.RuntimeCELCostBudget, d.authz)
		if err := d.record(res, h.policy, b, annotations); err != nil {
			return err
		}
	}
	return nil
}

// withTypeMeta gives a typed param its apiVersion and kind, which CEL
// reads; dynapi's params are unstructured and have them already.
func withTypeMeta(p runtime.Object, kind *v1.ParamKind) runtime.Object {
	if p == nil || kind == nil || !p.GetObjectKind().GroupVersionKind().Empty() {
		return p
	}
	p = p.DeepCopyObject()
	p.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(kind.APIVersion, kind.Kind))
	return p
}
