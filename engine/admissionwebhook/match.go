package admissionwebhook

import (
	"context"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admission"
)

// request is one admission request as the webhooks of one plug-in see it:
// the attributes, what is read once for all webhooks (the namespace's
// labels), and the attributes converted to the versions webhooks asked
// for (matchPolicy Equivalent).
type request struct {
	attr      *admission.Attributes
	authz     authorizer.UnconditionalAuthorizer // the matchConditions' authorizer
	nsLabels  map[string]string
	nsErr     error
	nsRead    bool
	versioned map[string]*admission.Attributes // by version
}

// namespaceLabels reads the labels of the request's namespace, once.
func (r *request) namespaceLabels(ctx context.Context) (map[string]string, error) {
	if !r.nsRead {
		r.nsLabels, r.nsErr = r.attr.NamespaceLabels(ctx)
		r.nsRead = true
	}
	return r.nsLabels, r.nsErr
}

// isNamespace says the request writes a Namespace.
func (r *request) isNamespace() bool {
	return r.attr.Resource == engine.Namespaces
}

// matchNamespace is kube's namespace matcher: a cluster-scoped object
// (but a Namespace) always matches; NotFound is answered as it is.
func (r *request) matchNamespace(ctx context.Context, h *hook) (bool, error) {
	if r.attr.Namespace == "" && !r.isNamespace() {
		return true, nil
	}
	if h.nsSel.Empty() {
		return true, nil
	}
	ls, err := r.namespaceLabels(ctx)
	if err != nil {
		if engine.ErrorCode(err) == engine.CodeNotFound {
			return false, err
		}
		return false, internal(err)
	}
	return h.nsSel.Matches(labels.Set(ls)), nil
}

// matchObject is kube's object matcher: the object's labels or the old
// object's.
func (r *request) matchObject(h *hook) bool {
	if h.objSel.Empty() {
		return true
	}
	return selects(h.objSel, r.attr.Object) || selects(h.objSel, r.attr.OldObject)
}

// invocation is a webhook to call and the version it sees the object in.
type invocation struct {
	hook    *hook
	version string
}

// shouldCall is kube's ShouldCallHook: selectors, rules (then, under
// matchPolicy Equivalent, the rules against the resource's other
// versions), then matchConditions. nil: not called. Errors: a selector
// error or namespace read, once the rules match; Forbidden for a
// condition that failed under failurePolicy Fail.
func (r *request) shouldCall(ctx context.Context, h *hook) (*invocation, error) {
	nsMatch, nsErr := r.matchNamespace(ctx, h)
	if !nsMatch && nsErr == nil {
		return nil, nil
	}
	if h.selectorErr == nil && !r.matchObject(h) {
		return nil, nil
	}
	inv := r.matchRules(h)
	if inv == nil {
		return nil, nil
	}
	if nsErr != nil {
		return nil, nsErr
	}
	if h.selectorErr != nil {
		return nil, internal(h.selectorErr)
	}
	if h.conditions == nil {
		return inv, nil
	}
	va, err := r.versionedAttr(inv.version)
	if err != nil {
		return nil, err
	}
	k, err := va.Kube()
	if err != nil {
		return nil, internal(err)
	}
	kind := schema.GroupVersionKind{Group: va.Kind.Group, Version: va.Kind.Version, Kind: va.Kind.Kind}
	matches, err := h.conditions.Match(ctx, k, kind, r.authz)
	if err != nil {
		return nil, engine.Errorf(engine.CodeForbidden, "%s %q is forbidden: %v", r.attr.Resource, r.attr.Name, err)
	}
	if !matches {
		return nil, nil
	}
	return inv, nil
}

// matchRules finds the version a rule of h matches: the request's own,
// else (matchPolicy Equivalent) another served version, in priority
// order, each rule in turn.
func (r *request) matchRules(h *hook) *invocation {
	a := r.attr
	for _, rule := range h.Rules {
		if ruleMatches(rule, a, a.Version) {
			return &invocation{hook: h, version: a.Version}
		}
	}
	if *h.MatchPolicy != admissionregistrationv1.Equivalent {
		return nil
	}
	for _, rule := range h.Rules {
		for _, v := range a.Versions {
			if v != a.Version && ruleMatches(rule, a, v) {
				return &invocation{hook: h, version: v}
			}
		}
	}
	return nil
}

// ruleMatches is kube's rules.Matcher for a's resource in version.
func ruleMatches(rule admissionregistrationv1.RuleWithOperations, a *admission.Attributes, version string) bool {
	return scopeMatches(rule.Scope, a) && operationMatches(rule.Operations, a.Operation) &&
		exactOrWildcard(rule.APIGroups, a.Resource.Group) && exactOrWildcard(rule.APIVersions, version) &&
		resourceMatches(rule.Resources, a.Resource.Resource, a.Subresource)
}

func scopeMatches(scope *admissionregistrationv1.ScopeType, a *admission.Attributes) bool {
	if scope == nil || *scope == admissionregistrationv1.AllScopes {
		return true
	}
	clusterScoped := a.Resource == engine.Namespaces || a.Namespace == ""
	switch *scope {
	case admissionregistrationv1.NamespacedScope:
		return !clusterScoped
	case admissionregistrationv1.ClusterScope:
		return clusterScoped
	}
	return false
}

func operationMatches(ops []admissionregistrationv1.OperationType, op admission.Operation) bool {
	for _, o := range ops {
		if o == admissionregistrationv1.OperationAll || string(o) == string(op) {
			return true
		}
	}
	return false
}

func exactOrWildcard(items []string, requested string) bool {
	for _, item := range items {
		if item == "*" || item == requested {
			return true
		}
	}
	return false
}

// resourceMatches matches "resource", "resource/sub", "*", "*/sub",
// "resource/*" and "*/*" as kube does.
func resourceMatches(resources []string, res, sub string) bool {
	for _, r := range resources {
		rr, rs := splitResource(r)
		if (rr == "*" || rr == res) && (rs == "*" || rs == sub) {
			return true
		}
	}
	return false
}

func splitResource(s string) (res, sub string) {
	res, sub, _ = strings.Cut(s, "/")
	return res, sub
}

// versionedAttr is the request in version: its own attributes, or a copy
// with the objects converted (made once per version).
func (r *request) versionedAttr(version string) (*admission.Attributes, error) {
	a := r.attr
	if version == a.Version {
		return a, nil
	}
	if va, ok := r.versioned[version]; ok {
		return va, nil
	}
	va := a.InVersion(version)
	if a.Convert != nil {
		obj, err := convertOrNil(a, a.Object, version)
		if err != nil {
			return nil, err
		}
		old, err := convertOrNil(a, a.OldObject, version)
		if err != nil {
			return nil, err
		}
		va.SetObject(obj)
		va.OldObject = old
	}
	if r.versioned == nil {
		r.versioned = map[string]*admission.Attributes{}
	}
	r.versioned[version] = va
	return va, nil
}

func convertOrNil(a *admission.Attributes, obj []byte, version string) ([]byte, error) {
	if obj == nil {
		return nil, nil
	}
	out, err := a.Convert(obj, a.Version, version)
	if err != nil {
		return nil, internal(fmt.Errorf("unable to convert to %s: %w", version, err))
	}
	return out, nil
}

// internal is kube's NewInternalError.
func internal(err error) *engine.Error {
	return engine.Errorf(engine.CodeInternal, "Internal error occurred: %v", err)
}
