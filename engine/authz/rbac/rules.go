// Package rbac authorizes requests with the Roles, ClusterRoles,
// RoleBindings and ClusterRoleBindings stored through the API, as
// kube-apiserver's RBAC authorizer does: an Index follows them with a
// list and a watch, and compiles them into an immutable policy that
// each request reads without a lock. The rule semantics are kube's
// (pkg/apis/rbac/v1/evaluation_helpers.go), including the escalation
// check of Role and binding writes (pkg/registry/rbac/validation).
package rbac

import (
	"slices"
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
		if u == "*" || nonResourceURLCovers(u, path) {
			return true
		}
	}
	return false
}

// nonResourceURLCovers: owner is path, or ends in "*" and path starts
// with what precedes its stars (kube's nonResourceURLCovers; a requested
// "/a/*" is covered by "/a/*" or "/*", never by "/a/b").
func nonResourceURLCovers(owner, path string) bool {
	return owner == path || (strings.HasSuffix(owner, "*") && strings.HasPrefix(path, strings.TrimRight(owner, "*")))
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

// breakdown splits a rule into rules of one of each thing it names, in
// kube's BreakdownRule order (group, resource, verb, name; then URL,
// verb), which is the order the refusal lists them in.
func breakdown(rule rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, g := range rule.APIGroups {
		for _, r := range rule.Resources {
			for _, verb := range rule.Verbs {
				atom := rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{r}, Verbs: []string{verb}}
				if len(rule.ResourceNames) == 0 {
					out = append(out, atom)
					continue
				}
				for _, n := range rule.ResourceNames {
					named := atom
					named.ResourceNames = []string{n}
					out = append(out, named)
				}
			}
		}
	}
	for _, u := range rule.NonResourceURLs {
		for _, verb := range rule.Verbs {
			out = append(out, rbacv1.PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{verb}})
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
// rule atom, kube's ruleCovers: verbs and apiGroups have the wildcard
// "*", resources "*" and "*/subresource", nonResourceURLs a "*" suffix;
// resourceNames have none. A "*" among an owner's resourceNames is the
// name "*", as authorization reads it: it covers only a requested "*".
// An owner without resourceNames covers every name, and only such an
// owner covers a rule without them.
func covers(owner, atom *rbacv1.PolicyRule) bool {
	return hasAll(owner.Verbs, atom.Verbs, true) &&
		hasAll(owner.APIGroups, atom.APIGroups, true) &&
		resourcesCover(owner.Resources, atom.Resources) &&
		urlsCover(owner.NonResourceURLs, atom.NonResourceURLs) &&
		namesCover(owner.ResourceNames, atom.ResourceNames)
}

// hasAll reports whether owner holds every value of want, or (when
// wildcard) the value "*".
func hasAll(owner, want []string, wildcard bool) bool {
	if wildcard && slices.Contains(owner, "*") {
		return true
	}
	for _, w := range want {
		if !slices.Contains(owner, w) {
			return false
		}
	}
	return true
}

// resourcesCover: "*" covers all, "*/sub" covers "x/sub", else equality.
func resourcesCover(owner, want []string) bool {
	if hasAll(owner, want, true) {
		return true
	}
	for _, w := range want {
		if slices.Contains(owner, w) {
			continue
		}
		_, sub, found := strings.Cut(w, "/")
		if !found || !slices.Contains(owner, "*/"+sub) {
			return false
		}
	}
	return true
}

// urlsCover: every wanted URL is covered by one owner URL.
func urlsCover(owner, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(owner, func(o string) bool { return nonResourceURLCovers(o, w) }) {
			return false
		}
	}
	return true
}

// namesCover compares resourceNames literally: an owner without names
// covers everything; a request without names needs such an owner.
func namesCover(owner, want []string) bool {
	if len(owner) == 0 {
		return true
	}
	return len(want) > 0 && hasAll(owner, want, false)
}
