package rbac

import (
	"fmt"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authz"
)

// objects are the RBAC objects as stored, by "namespace/name".
type objects struct {
	roles               map[string]*rbacv1.Role
	clusterRoles        map[string]*rbacv1.ClusterRole
	roleBindings        map[string]*rbacv1.RoleBinding
	clusterRoleBindings map[string]*rbacv1.ClusterRoleBinding
}

// grant is the rules one binding gives a subject.
type grant struct {
	rules []rbacv1.PolicyRule
	// by says where the rules come from, for a review's reason.
	by string
}

// subject is a user ("u") or a group ("g").
type subject struct {
	kind byte
	name string
}

// policy is the compiled, immutable state of the RBAC objects.
type policy struct {
	clusterRoles map[string][]rbacv1.PolicyRule // aggregated
	roles        map[string][]rbacv1.PolicyRule // by "namespace/name"
	cluster      map[subject][]grant
	namespaced   map[string]map[subject][]grant
	// missing counts bindings whose role does not exist.
	missing map[string]bool
}

// compile builds the policy of objs.
func compile(objs *objects) *policy {
	p := &policy{clusterRoles: aggregate(objs.clusterRoles), roles: map[string][]rbacv1.PolicyRule{},
		cluster: map[subject][]grant{}, namespaced: map[string]map[subject][]grant{}, missing: map[string]bool{}}
	for key, r := range objs.roles {
		p.roles[key] = r.Rules
	}
	for _, b := range objs.clusterRoleBindings {
		rules, ok := p.clusterRoles[b.RoleRef.Name]
		if b.RoleRef.Kind != "ClusterRole" || !ok {
			p.missing[""] = true
			continue
		}
		by := fmt.Sprintf("ClusterRoleBinding %q of ClusterRole %q", b.Name, b.RoleRef.Name)
		for _, s := range b.Subjects {
			if key, ok := subjectKey(s, ""); ok {
				p.cluster[key] = append(p.cluster[key], grant{rules, by})
			}
		}
	}
	for _, b := range objs.roleBindings {
		rules, ok := p.RoleRules(b.Namespace, b.RoleRef)
		if !ok {
			p.missing[b.Namespace] = true
			continue
		}
		by := fmt.Sprintf("RoleBinding %q of %s %q", b.Namespace+"/"+b.Name, b.RoleRef.Kind, b.RoleRef.Name)
		ns := p.namespaced[b.Namespace]
		if ns == nil {
			ns = map[subject][]grant{}
			p.namespaced[b.Namespace] = ns
		}
		for _, s := range b.Subjects {
			if key, ok := subjectKey(s, b.Namespace); ok {
				ns[key] = append(ns[key], grant{rules, by})
			}
		}
	}
	return p
}

// RoleRules are the rules of the role ref names, from a binding in
// namespace.
func (p *policy) RoleRules(namespace string, ref rbacv1.RoleRef) ([]rbacv1.PolicyRule, bool) {
	switch ref.Kind {
	case "ClusterRole":
		rules, ok := p.clusterRoles[ref.Name]
		return rules, ok
	case "Role":
		rules, ok := p.roles[namespace+"/"+ref.Name]
		return rules, ok
	}
	return nil, false
}

// subjectKey is who a binding's subject is: a ServiceAccount is the user
// system:serviceaccount:{namespace}:{name}, its namespace the binding's
// when unset.
func subjectKey(s rbacv1.Subject, bindingNamespace string) (subject, bool) {
	switch s.Kind {
	case rbacv1.UserKind:
		return subject{'u', s.Name}, true
	case rbacv1.GroupKind:
		return subject{'g', s.Name}, true
	case rbacv1.ServiceAccountKind:
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		if ns == "" {
			return subject{}, false
		}
		return subject{'u', "system:serviceaccount:" + ns + ":" + s.Name}, true
	}
	return subject{}, false
}

// aggregate returns each ClusterRole's rules. One with an aggregationRule
// has the rules of every ClusterRole its selectors match, those of a
// matched aggregated one being its own aggregated rules (kube's admin
// aggregates edit, which aggregates view): the fixed point kube's
// aggregation controller reaches, in which an aggregated role holds the
// rules of every plain role reachable through matches, cycles included.
func aggregate(roles map[string]*rbacv1.ClusterRole) map[string][]rbacv1.PolicyRule {
	byName := make(map[string]*rbacv1.ClusterRole, len(roles))
	names := make([]string, 0, len(roles))
	for _, r := range roles {
		byName[r.Name] = r
		names = append(names, r.Name)
	}
	sort.Strings(names) // a stable order of the aggregated rules
	out := make(map[string][]rbacv1.PolicyRule, len(roles))
	for _, name := range names {
		if byName[name].AggregationRule == nil {
			out[name] = byName[name].Rules
			continue
		}
		var rules []rbacv1.PolicyRule
		seen := map[string]bool{name: true}
		for queue := matching(byName, names, name); len(queue) > 0; queue = queue[1:] {
			if seen[queue[0]] {
				continue
			}
			seen[queue[0]] = true
			if r := byName[queue[0]]; r.AggregationRule == nil {
				rules = append(rules, r.Rules...)
			} else {
				queue = append(queue, matching(byName, names, queue[0])...)
			}
		}
		out[name] = rules
	}
	return out
}

// matching lists the other ClusterRoles the aggregationRule of name
// selects, in names' order.
func matching(byName map[string]*rbacv1.ClusterRole, names []string, name string) []string {
	var out []string
	for _, sel := range byName[name].AggregationRule.ClusterRoleSelectors {
		s, err := metav1.LabelSelectorAsSelector(&sel)
		if err != nil || s.Empty() {
			continue
		}
		for _, other := range names {
			if other != name && s.Matches(labels.Set(byName[other].Labels)) {
				out = append(out, other)
			}
		}
	}
	return out
}

// subjects are the keys of u: its name and its groups.
func subjects(u *engine.User, each func(subject) bool) bool {
	if each(subject{'u', u.Name}) {
		return true
	}
	for _, g := range u.Groups {
		if each(subject{'g', g}) {
			return true
		}
	}
	return false
}

// authorize finds a rule that allows a, and says where it comes from.
func (p *policy) authorize(a *authz.Attributes) (string, bool) {
	var by string
	allows := func(grants []grant) bool {
		for _, g := range grants {
			for i := range g.rules {
				if ruleAllows(a, &g.rules[i]) {
					by = g.by
					return true
				}
			}
		}
		return false
	}
	found := subjects(a.User, func(s subject) bool { return allows(p.cluster[s]) })
	if !found && a.Namespace != "" {
		ns := p.namespaced[a.Namespace]
		found = ns != nil && subjects(a.User, func(s subject) bool { return allows(ns[s]) })
	}
	return by, found
}

// rulesFor are the rules u holds in namespace ("" for those held
// everywhere).
func (p *policy) rulesFor(u *engine.User, namespace string) []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	collect := func(grants []grant) {
		for _, g := range grants {
			rules = append(rules, g.rules...)
		}
	}
	subjects(u, func(s subject) bool { collect(p.cluster[s]); return false })
	if ns := p.namespaced[namespace]; namespace != "" && ns != nil {
		subjects(u, func(s subject) bool { collect(ns[s]); return false })
	}
	return rules
}
