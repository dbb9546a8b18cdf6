package admissionpolicy

import (
	"context"

	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authz"
)

// kubeAuthorizer answers CEL's authorizer checks with dynapi's
// authorizer; without one (a server without authorization) everything
// is allowed, as every request is.
type kubeAuthorizer struct{ authz authz.Authorizer }

// NewAuthorizer returns a as kube's authorizer, for Store.Authorizer; nil
// a allows everything.
func NewAuthorizer(a authz.Authorizer) authorizer.UnconditionalAuthorizer { return kubeAuthorizer{a} }

func (k kubeAuthorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if k.authz == nil {
		return authorizer.DecisionAllow, "", nil
	}
	d, reason, err := k.authz.Authorize(ctx, attributesOf(a))
	switch d {
	case authz.DecisionAllow:
		return authorizer.DecisionAllow, reason, err
	case authz.DecisionDeny:
		return authorizer.DecisionDeny, reason, err
	}
	return authorizer.DecisionNoOpinion, reason, err
}

func attributesOf(a authorizer.Attributes) authz.Attributes {
	out := authz.Attributes{Verb: a.GetVerb(), ResourceRequest: a.IsResourceRequest(), Namespace: a.GetNamespace(),
		APIGroup: a.GetAPIGroup(), APIVersion: a.GetAPIVersion(), Resource: a.GetResource(),
		Subresource: a.GetSubresource(), Name: a.GetName(), Path: a.GetPath()}
	if u := a.GetUser(); u != nil {
		out.User = &engine.User{Name: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra()}
	}
	return out
}
