// Package rbac authorizes requests with the Roles, ClusterRoles,
// RoleBindings and ClusterRoleBindings stored through the API, as
// kube-apiserver's RBAC authorizer does: an Index follows them with a
// list and a watch, and compiles them into an immutable policy that
// each request reads without a lock. The rule semantics are kube's
// (pkg/apis/rbac/v1/evaluation_helpers.go), including the escalation
// check of Role and binding writes (pkg/registry/rbac/validation).
package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/dynapi/dynapi/engine/authz"
)

// ruleAllows reports whether rule allows a, kube's RuleAllows.
func ruleAllows(a *authz.Attributes, rule *rbacv1.PolicyRule) bool {
	if !a.ResourceRequest {
		return has(rule.Verbs, a.Verb) && nonResourceURLMatches(rule, a.Path)
	}
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	return has(rule.Verbs, a.Verb) && has(rule.APIGroups, a.APIGroup) &&
		resourceMatches(rule, combined, a.Subresource) && resourceNameMatches(rule, a.Name)
}

// has reports whether values holds want or the wildcard "*".
func has(values []string, want string) bool {
	for _, v := range values {
		if v == "*" || v == want {
			return true
		}
	}
	return false
}

// resourceMatches matches resource/subresource, "*", and "*/subresource".
func resourceMatches(rule *rbacv1.PolicyRule, combined, subresource string) bool {
	for _, r := range rule.Resources {
		switch {
		case r == "*", r == combined:
			return true
		case subresource != "" && len(r) == len(subresource)+2 && strings.HasPrefix(r, "*/") && strings.HasSuffix(r, subresource):
			return true
		}
	}
	return false
}

// resourceNameMatches: a rule without resourceNames matches every name.
func resourceNameMatches(rule *rbacv1.PolicyRule, name string) bool {
	if len(rule.ResourceNames) == 0 {
		return true
	}
	for _, n := range rule.ResourceNames {
		if n == name {
			return true
		}
	}
	return false
}

// nonResourceURLMatches matches a path exactly, "*", or a prefix ending
// in "*".
func nonResourceURLMatches(rule *rbacv1.PolicyRule, path string) bool {
	for _, u := range rule.NonResourceURLs {
		switch {
		case u == "*", u == path:
			return true
		case strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimSuffix(u, "*")):
			return true
		}
	}
	return false
}

// Uncovered returns the parts of requested that owner does not hold,
// kube's validation.Covers: each requested rule is broken down into
// rules of one verb, group, resource and name (or URL), and each of those
// must be covered by one owner rule.
func Uncovered(owner, requested []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var missing []rbacv1.PolicyRule
	for _, req := range requested {
		for _, atom := range breakdown(req) {
			if !coveredByAny(owner, &atom) {
				missing = append(missing, atom)
			}
		}
	}
	return missing
}

// breakdown splits a rule into rules of one of each thing it names.
func breakdown(rule rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	names := rule.ResourceNames
	if len(names) == 0 {
		names = []string{""}
	}
	for _, verb := range rule.Verbs {
		for _, g := range rule.APIGroups {
			for _, r := range rule.Resources {
				for _, n := range names {
					atom := rbacv1.PolicyRule{Verbs: []string{verb}, APIGroups: []string{g}, Resources: []string{r}}
					if n != "" {
						atom.ResourceNames = []string{n}
					}
					out = append(out, atom)
				}
			}
		}
		for _, u := range rule.NonResourceURLs {
			out = append(out, rbacv1.PolicyRule{Verbs: []string{verb}, NonResourceURLs: []string{u}})
		}
	}
	return out
}

func coveredByAny(owner []rbacv1.PolicyRule, atom *rbacv1.PolicyRule) bool {
	for i := range owner {
		if covers(&owner[i], atom) {
			return true
		}
	}
	return false
}

// covers reports whether owner holds everything of the one-of-each
// rule atom, kube's ruleCovers.
func covers(owner, atom *rbacv1.PolicyRule) bool {
	if !has(owner.Verbs, atom.Verbs[0]) {
		return false
	}
	if len(atom.NonResourceURLs) > 0 {
		return len(owner.NonResourceURLs) > 0 && nonResourceURLMatches(owner, atom.NonResourceURLs[0]) &&
			(!strings.HasSuffix(atom.NonResourceURLs[0], "*") || hasPrefixCover(owner.NonResourceURLs, atom.NonResourceURLs[0]))
	}
	if !has(owner.APIGroups, atom.APIGroups[0]) || !resourceCovers(owner.Resources, atom.Resources[0]) {
		return false
	}
	if len(owner.ResourceNames) == 0 {
		return true
	}
	return len(atom.ResourceNames) == 1 && has(owner.ResourceNames, atom.ResourceNames[0])
}

// hasPrefixCover: a requested "/a/*" needs an owner "*" or a prefix of it
// ending in "*".
func hasPrefixCover(owner []string, want string) bool {
	for _, u := range owner {
		if u == "*" || (strings.HasSuffix(u, "*") && strings.HasPrefix(want, strings.TrimSuffix(u, "*"))) {
			return true
		}
	}
	return false
}

// resourceCovers: "*" covers all, "*/sub" covers "x/sub", else equality.
func resourceCovers(owner []string, want string) bool {
	for _, r := range owner {
		if r == "*" || r == want {
			return true
		}
		if sub, ok := strings.CutPrefix(r, "*/"); ok {
			if _, wsub, found := strings.Cut(want, "/"); found && wsub == sub {
				return true
			}
		}
	}
	return false
}
