package admissionpolicy

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	admissionauthorizer "k8s.io/apiserver/pkg/admission/plugin/authorizer"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Mutate runs every MutatingAdmissionPolicy of s that matches a, in
// order, as kube's MutatingAdmissionPolicy plug-in does, and returns the
// object they made (nil when none changed it). Policies with
// reinvocationPolicy IfNeeded run again, when a's reinvocation context
// says the chain runs a second time, if a later step changed the object.
// Errors: kube's (`policy 'p' with binding 'b' denied request: …`).
func (s *Set) Mutate(ctx context.Context, a admission.Attributes, env Env) (runtime.Object, error) {
	if s == nil {
		return nil, nil
	}
	hooks := s.mutatingFor(a.GetResource().GroupResource())
	if len(hooks) == 0 {
		return nil, nil
	}
	m := &mutation{request: newRequest(ctx, env, a)}
	var invocations []invocation
	for _, h := range hooks {
		invocations = append(invocations, m.invocations(h)...)
	}
	if len(invocations) > 0 {
		if err := m.invoke(invocations); err != nil {
			return nil, err
		}
	}
	if err := m.denial(); err != nil {
		return nil, err
	}
	return m.result, nil
}

// mutation is one request's run through the mutating policies: kube's
// generic policy dispatcher and its mutating delegate.
type mutation struct {
	*request
	errs   []policyError
	result runtime.Object
}

// invocation is one policy, binding and param that apply.
type invocation struct {
	hook     *mutatingHook
	binding  *v1.MutatingAdmissionPolicyBinding
	param    runtime.Object
	resource schema.GroupVersionResource
	kind     schema.GroupVersionKind
}

// policyError is kube's generic.PolicyError.
type policyError struct {
	policy  *v1.MutatingAdmissionPolicy
	binding *v1.MutatingAdmissionPolicyBinding
	err     error
}

func (e policyError) Error() string {
	if e.binding != nil {
		return fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", e.policy.Name, e.binding.Name, e.err.Error())
	}
	return fmt.Sprintf("policy %q denied request: %s", e.policy.Name, e.err.Error())
}

func (m *mutation) configError(err error, p *v1.MutatingAdmissionPolicy, b *v1.MutatingAdmissionPolicyBinding) {
	if b == nil {
		err = fmt.Errorf("failed to configure policy: %w", err)
	} else {
		err = fmt.Errorf("failed to configure binding: %w", err)
	}
	m.errs = append(m.errs, policyError{policy: p, binding: b, err: err})
}

// invocations are a policy's matching bindings, once per param.
func (m *mutation) invocations(h *mutatingHook) []invocation {
	o := m.objectInterfaces()
	matches, resource, kind, err := m.matcher.DefinitionMatches(m.attrs, o, mutating.NewMutatingAdmissionPolicyAccessor(h.policy))
	switch {
	case err != nil:
		m.configError(err, h.policy, nil)
		return nil
	case !matches:
		return nil
	case h.err != nil:
		m.configError(h.err, h.policy, nil)
		return nil
	}
	var out []invocation
	for _, b := range h.bindings {
		matches, err := m.matcher.BindingMatches(m.attrs, o, mutating.NewMutatingAdmissionPolicyBindingAccessor(b))
		if err != nil {
			m.configError(err, h.policy, b)
			continue
		}
		if !matches {
			continue
		}
		if _, err := m.versionedAttributes(kind); err != nil {
			m.configError(err, h.policy, nil)
			continue
		}
		params, err := m.collectParams(h.policy.Spec.ParamKind, b.Spec.ParamRef, m.attrs.GetNamespace())
		if err != nil {
			m.configError(err, h.policy, b)
			continue
		}
		for _, p := range params {
			out = append(out, invocation{hook: h, binding: b, param: withTypeMeta(p, h.policy.Spec.ParamKind), resource: resource, kind: kind})
		}
	}
	return out
}

// denial is kube's error for the configuration and mutation errors of
// policies that fail closed: the first one's text and reason.
func (m *mutation) denial() error {
	var first *policyError
	var causes []string
	for i, e := range m.errs {
		if fp := e.policy.Spec.FailurePolicy; fp != nil && *fp == v1.Ignore {
			continue
		}
		if first == nil {
			first = &m.errs[i]
		}
		causes = append(causes, e.Error())
	}
	if first == nil {
		return nil
	}
	var se *apierrors.StatusError
	if !errors.As(admission.NewForbidden(m.attrs, errors.New("admission request denied by policy")), &se) {
		return apierrors.NewInternalError(errors.New("failed to create status error"))
	}
	// kube sets reason Invalid for a failed mutation but keeps code 403;
	// dynapi's errors carry one code, and keep the 403 clients act on.
	se.ErrStatus.Message = first.Error()
	for _, c := range causes {
		se.ErrStatus.Details.Causes = append(se.ErrStatus.Details.Causes, metav1.StatusCause{Message: c})
	}
	return se
}

// invoke applies the invocations in order, kube's dispatchInvocations.
func (m *mutation) invoke(invocations []invocation) error {
	rc := reinvocationOf(m.attrs)
	if m.attrs.GetReinvocationContext().IsReinvoke() && rc.changedSince(m.attrs.GetObject()) {
		rc.requireReinvoking()
	}
	ns, err := m.namespaceObject(m.attrs)
	if err != nil {
		return err
	}
	authz := admissionauthorizer.NewCachingAuthorizer(m.env.Authorizer())
	var last *admission.VersionedAttributes
	for _, inv := range invocations {
		va, err := m.versionedAttributes(inv.kind)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		ok, err := m.preconditions(inv, va, authz)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		k := keyOf(inv)
		if m.attrs.GetReinvocationContext().IsReinvoke() && !rc.shouldReinvoke(k) {
			continue
		}
		before := va.VersionedObject.Object()
		if err := m.mutate(inv, va, ns, cel.OptionalVariableBindings{VersionedParams: inv.param, Authorizer: authz}); err != nil {
			return err
		}
		last = va
		if !apiequality.Semantic.DeepEqual(before, va.VersionedObject.Object()) {
			rc.requireReinvoking()
			m.attrs.GetReinvocationContext().SetShouldReinvoke()
		}
		if inv.hook.policy.Spec.ReinvocationPolicy == v1.IfNeededReinvocationPolicy {
			rc.invoked(k)
		}
	}
	if last != nil && last.VersionedObject.Object() != nil && last.Dirty {
		rc.requireReinvoking()
		m.attrs.GetReinvocationContext().SetShouldReinvoke()
		out, err := admission.ConvertToGVK(last.VersionedObject.Object(), m.attrs.GetKind(), m.objectInterfaces())
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("failed to convert object: %w", err))
		}
		m.result = out
	}
	rc.setLast(m.result, m.attrs.GetObject())
	return nil
}

// preconditions evaluates the policy's match conditions; a failure is a
// configuration error, not a denial of its own.
func (m *mutation) preconditions(inv invocation, va *admission.VersionedAttributes, authz authorizer.UnconditionalAuthorizer) (bool, error) {
	if inv.hook.matcher == nil {
		return true, nil
	}
	res := inv.hook.matcher.Match(m.contextFor(inv), va, inv.param, authz)
	if res.Error != nil {
		m.errs = append(m.errs, policyError{policy: inv.hook.policy, binding: inv.binding, err: res.Error})
		return false, nil
	}
	return res.Matches, nil
}

// mutate applies each mutation of a policy in order to va's object.
func (m *mutation) mutate(inv invocation, va *admission.VersionedAttributes, ns *corev1.Namespace, vars cel.OptionalVariableBindings) error {
	ctx := m.contextFor(inv)
	for _, p := range inv.hook.patchers {
		if va.VersionedObject.Object() == nil {
			continue
		}
		req, err := m.patchRequest(va.VersionedKind)
		if err != nil {
			return err
		}
		req.MatchedResource, req.VersionedAttributes, req.ObjectInterfaces = inv.resource, va, m.objectInterfaces()
		req.OptionalVariables, req.Namespace = vars, ns
		out, err := p.Patch(ctx, req, celconfig.RuntimeCELCostBudget)
		if err != nil {
			var se *apierrors.StatusError
			if errors.As(err, &se) {
				return se
			}
			m.errs = append(m.errs, policyError{policy: inv.hook.policy, binding: inv.binding, err: err})
			continue
		}
		va.UpdateObject(out)
	}
	return nil
}

// contextFor carries the policy's compiled variables, kube's
// CompositedCompiler.CreateContext.
func (m *mutation) contextFor(inv invocation) context.Context {
	if inv.hook.compiler == nil {
		return m.ctx
	}
	return inv.hook.compiler.CreateContext(m.ctx)
}

// patchRequest is a patch request with the structured-merge-diff types
// of gvk's kind, which ApplyConfiguration merges with. Errors: kube's
// for a kind it has no types of.
func (m *mutation) patchRequest(gvk schema.GroupVersionKind) (patch.Request, error) {
	kind, err := m.env.Fields(gvk)
	if err == nil {
		tc, err := kind.TypeConverter()
		if err == nil {
			return patch.Request{TypeConverter: tc}, nil
		}
	}
	return patch.Request{}, apierrors.NewServiceUnavailable(fmt.Sprintf("Resource kind %s not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.", gvk))
}
