// Package authz is the vocabulary of authorization, kube-apiserver's
// authorizer package: the attributes of a request, an Authorizer's
// decision, and the rules a user holds (for SelfSubjectRulesReview). The
// RBAC authorizer is in authz/rbac.
package authz

import (
	"context"
	"fmt"

	"github.com/dynapi/dynapi/engine"
)

// Attributes are what a request asks to do, kube's authorizer.Attributes.
type Attributes struct {
	User *engine.User
	// Verb is kube's verb for a resource request (get, list, watch, create,
	// update, patch, delete, deletecollection, or one that no request
	// has, such as bind and escalate) and the lowercased HTTP method of a
	// non-resource request.
	Verb            string
	ResourceRequest bool
	Namespace       string
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Name            string
	// Path is the URL path of a non-resource request.
	Path string
}

// Decision is an Authorizer's answer.
type Decision int

// The decisions, as kube names them.
const (
	DecisionNoOpinion Decision = iota
	DecisionAllow
	DecisionDeny
)

// Authorizer decides whether a request may be served. reason says why,
// for the refusal's message (may be empty).
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (d Decision, reason string, err error)
}

// ResourceRule is a rule on resources, authorizationv1.ResourceRule.
type ResourceRule struct {
	Verbs         []string `json:"verbs"`
	APIGroups     []string `json:"apiGroups,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// NonResourceRule is a rule on paths, authorizationv1.NonResourceRule.
type NonResourceRule struct {
	Verbs           []string `json:"verbs"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// RuleResolver lists the rules a user holds in a namespace, for
// SelfSubjectRulesReview; incomplete says some could not be resolved (a
// binding to a missing role).
type RuleResolver interface {
	RulesFor(u *engine.User, namespace string) (resources []ResourceRule, nonResources []NonResourceRule, incomplete bool)
}

// AlwaysAllow allows everything: the authorization of a server with no
// --authorization-mode, kube's AlwaysAllow mode.
type AlwaysAllow struct{}

var (
	_ Authorizer   = AlwaysAllow{}
	_ RuleResolver = AlwaysAllow{}
)

// Authorize allows.
func (AlwaysAllow) Authorize(context.Context, Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

// RulesFor is everything.
func (AlwaysAllow) RulesFor(*engine.User, string) ([]ResourceRule, []NonResourceRule, bool) {
	all := []string{"*"}
	return []ResourceRule{{Verbs: all, APIGroups: all, Resources: all}},
		[]NonResourceRule{{Verbs: all, NonResourceURLs: all}}, false
}

// ForbiddenMessage is kube-apiserver's text for a refused request,
// without the "... is forbidden: " prefix the Status adds.
func ForbiddenMessage(a Attributes) string {
	name := ""
	if a.User != nil {
		name = a.User.Name
	}
	if !a.ResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", name, a.Verb, a.Path)
	}
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, a.Verb, res, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, a.Verb, res, a.APIGroup)
}

// Forbidden is the error of a refused request, in kube's wording:
// `widgets.acme.io "w" is forbidden: User "bob" cannot ...: reason`.
func Forbidden(a Attributes, reason string) *engine.Error {
	msg := ForbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	return ForbiddenError(a.APIGroup, a.Resource, a.Name, a.ResourceRequest, msg)
}

// ForbiddenError is kube's errors.NewForbidden: the qualified resource and
// name, then why.
func ForbiddenError(group, resource, name string, resourceRequest bool, why string) *engine.Error {
	qualified := resource
	if group != "" {
		qualified += "." + group
	}
	var msg string
	switch {
	case !resourceRequest || qualified == "":
		msg = "forbidden: " + why
	case name == "":
		msg = fmt.Sprintf("%s is forbidden: %s", qualified, why)
	default:
		msg = fmt.Sprintf("%s %q is forbidden: %s", qualified, name, why)
	}
	return &engine.Error{Code: engine.CodeForbidden, Message: msg, Group: group, Kind: resource, Name: name}
}
