package rbac

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authz"
	"github.com/dynapi/dynapi/engine/resource"
)

var (
	_ authz.Authorizer   = (*Index)(nil)
	_ authz.RuleResolver = (*Index)(nil)
)

// Authorize allows a when the user is in system:masters or a rule bound
// to the user, one of its groups or (as a ServiceAccount) its name allows
// it; cluster-wide bindings count everywhere, a RoleBinding in its
// namespace. It never denies outright: no rule is no opinion, as in kube.
func (x *Index) Authorize(_ context.Context, a authz.Attributes) (authz.Decision, string, error) {
	if a.User == nil {
		return authz.DecisionNoOpinion, "", nil
	}
	if a.User.InGroup(engine.GroupMasters) {
		return authz.DecisionAllow, "", nil
	}
	if by, ok := x.policy.Load().authorize(&a); ok {
		return authz.DecisionAllow, "RBAC: allowed by " + by, nil
	}
	return authz.DecisionNoOpinion, "", nil
}

// RulesFor lists u's rules in namespace, for SelfSubjectRulesReview.
func (x *Index) RulesFor(u *engine.User, namespace string) ([]authz.ResourceRule, []authz.NonResourceRule, bool) {
	p := x.policy.Load()
	rules := p.rulesFor(u, namespace)
	if u.InGroup(engine.GroupMasters) {
		all := []string{"*"}
		rules = append([]rbacv1.PolicyRule{{Verbs: all, APIGroups: all, Resources: all}, {Verbs: all, NonResourceURLs: all}}, rules...)
	}
	var res []authz.ResourceRule
	var nonRes []authz.NonResourceRule
	for _, r := range rules {
		if len(r.Resources) > 0 {
			res = append(res, authz.ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
		}
		if len(r.NonResourceURLs) > 0 {
			nonRes = append(nonRes, authz.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
		}
	}
	return res, nonRes, p.missing[""] || p.missing[namespace]
}

// CheckRole refuses a Role or ClusterRole (resource "roles" or
// "clusterroles") that grants more than the writing user holds, as
// kube-apiserver does: unless the user may "escalate" it, every rule must
// be covered by the user's own rules in namespace ("" for a ClusterRole);
// and when the role has an aggregationRule, or had one before this write
// (aggregated), the user must hold everything, since the rule can gather
// anything and removing it takes the gathered rules from everyone bound.
// A write with no user (the server's own) passes. Errors: Forbidden.
func (x *Index) CheckRole(ctx context.Context, resource, namespace, name string, rules []rbacv1.PolicyRule, aggregated bool) error {
	u, ok := engine.UserFrom(ctx)
	if !ok || x.may(ctx, u, "escalate", resource, namespace, name) {
		return nil
	}
	if err := x.confirmNoEscalation(u, resource, namespace, name, rules); err != nil {
		return err
	}
	if aggregated && x.confirmNoEscalation(u, resource, namespace, name, fullAuthority) != nil {
		return forbidden(resource, name, "must have cluster-admin privileges to use the aggregationRule")
	}
	return nil
}

// fullAuthority is everything, kube's: what an aggregationRule needs.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// CheckBinding refuses a RoleBinding or ClusterRoleBinding of a role
// whose rules the writing user does not hold, unless the user may "bind"
// that role. Errors: Forbidden; NotFound-like Forbidden when the role
// does not exist.
func (x *Index) CheckBinding(ctx context.Context, resource, namespace, name string, ref rbacv1.RoleRef) error {
	u, ok := engine.UserFrom(ctx)
	if !ok {
		return nil
	}
	roleResource := "clusterroles"
	if ref.Kind == "Role" {
		roleResource = "roles"
	}
	if x.may(ctx, u, "bind", roleResource, namespace, ref.Name) {
		return nil
	}
	rules, found := x.policy.Load().RoleRules(namespace, ref)
	if !found {
		var err error
		if rules, found, err = x.storedRoleRules(ctx, namespace, ref); err != nil {
			return err
		}
	}
	if !found {
		return forbidden(resource, name, fmt.Sprintf("%s.%s %q not found", strings.ToLower(ref.Kind), Group, ref.Name))
	}
	return x.confirmNoEscalation(u, resource, namespace, name, rules)
}

// storedRoleRules reads the rules of the role ref names from the store.
// The index follows the store through the watch, so a role created a
// moment ago may not be in it yet; kube-apiserver's escalation check
// reads the role from storage, and so does this before it answers that
// the role does not exist.
func (x *Index) storedRoleRules(ctx context.Context, namespace string, ref rbacv1.RoleRef) ([]rbacv1.PolicyRule, bool, error) {
	plural := "clusterroles"
	switch ref.Kind {
	case "Role":
		plural = "roles"
	case "ClusterRole":
		namespace = ""
	default:
		return nil, false, nil
	}
	res, ver, ok := x.snapshots.Load().Lookup(Group, "v1", plural)
	if !ok {
		return nil, false, nil
	}
	body, err := x.service.Get(ctx, resource.Target{Resource: res, Version: ver, Namespace: namespace}, ref.Name)
	switch {
	case engine.ErrorCode(err) == engine.CodeNotFound:
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	var role struct {
		Rules []rbacv1.PolicyRule `json:"rules"`
	}
	if err := json.Unmarshal(body, &role); err != nil {
		return nil, false, fmt.Errorf("decode %s %q: %w", ref.Kind, ref.Name, err)
	}
	return role.Rules, true, nil
}

// may reports whether u may verb the role (bind, escalate).
func (x *Index) may(ctx context.Context, u *engine.User, verb, resource, namespace, name string) bool {
	d, _, _ := x.Authorize(ctx, authz.Attributes{User: u, Verb: verb, ResourceRequest: true, APIGroup: Group,
		APIVersion: "v1", Resource: resource, Namespace: namespace, Name: name})
	return d == authz.DecisionAllow
}

// confirmNoEscalation refuses rules u does not hold in namespace with
// kube's message: the missing rules, compacted, one per line, sorted and
// without repeats.
func (x *Index) confirmNoEscalation(u *engine.User, resource, namespace, name string, rules []rbacv1.PolicyRule) error {
	if u.InGroup(engine.GroupMasters) {
		return nil
	}
	missing := Uncovered(x.policy.Load().rulesFor(u, namespace), rules)
	if len(missing) == 0 {
		return nil
	}
	var parts []string
	for _, r := range compactRules(missing) {
		parts = append(parts, compactRule(r))
	}
	slices.Sort(parts)
	parts = slices.Compact(parts)
	return forbidden(resource, name, fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		u.Name, u.Groups, strings.Join(parts, "\n")))
}

// compactRules merges the rules of one group and one resource, with
// nothing but verbs besides, into one rule of all their verbs, as kube's
// CompactRules does to the missing rules before it prints them.
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	simple := map[[2]string]int{} // group, resource -> index in out
	for _, r := range rules {
		if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
			out = append(out, r)
			continue
		}
		key := [2]string{r.APIGroups[0], r.Resources[0]}
		if i, ok := simple[key]; ok {
			out[i].Verbs = append(slices.Clip(out[i].Verbs), r.Verbs...)
			continue
		}
		simple[key] = len(out)
		out = append(out, r)
	}
	return out
}

// compactRule prints a rule as kube's CompactString does.
func compactRule(r rbacv1.PolicyRule) string {
	var parts []string
	add := func(name string, values []string) {
		if len(values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, values))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}

func forbidden(resource, name, why string) error {
	return authz.ForbiddenError(Group, resource, name, true, why)
}
