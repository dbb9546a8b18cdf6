package roles

import (
	"context"
	"encoding/json"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
)

// Escalation is kube-apiserver's check that a user cannot grant more than
// they hold: authz/rbac's Index is one. A nil Escalation (no RBAC
// authorization) lets every write through.
type Escalation interface {
	// CheckRole refuses a Role or ClusterRole granting rules the user of
	// ctx does not hold; aggregated says the role has an aggregationRule
	// or had one before the write, which needs every right. Errors:
	// Forbidden.
	CheckRole(ctx context.Context, resource, namespace, name string, rules []rbacv1.PolicyRule, aggregated bool) error
	// CheckBinding refuses a binding of a role whose rules the user of ctx
	// does not hold. Errors: Forbidden.
	CheckBinding(ctx context.Context, resource, namespace, name string, ref rbacv1.RoleRef) error
}

// The resources the Role strategy serves.
var (
	Roles        = engine.GroupResource{Group: Group, Resource: "roles"}
	ClusterRoles = engine.GroupResource{Group: Group, Resource: "clusterroles"}
)

// Role is the strategy of Roles and ClusterRoles.
type Role struct {
	resource.CustomResource
	escalation Escalation
}

var (
	_ resource.WriteAuthorizer = Role{}
	_ resource.WriteAuthorizer = Binding{}
)

// Guard makes service refuse Role and binding writes that escalate, as
// kube-apiserver does once RBAC authorizes.
func Guard(service *resource.Service, e Escalation) {
	service.Register(Roles, Role{escalation: e})
	service.Register(ClusterRoles, Role{escalation: e})
	service.Register(RoleBindings, Binding{escalation: e})
	service.Register(ClusterRoleBindings, Binding{escalation: e})
}

// AllowUnconditionalUpdate is true, as for kube-apiserver's RBAC kinds.
func (Role) AllowUnconditionalUpdate() bool { return true }

// AuthorizeWrite refuses a role granting more than its writer holds, and
// a ClusterRole write that sets, changes or removes an aggregationRule
// by a writer who does not hold everything: kube-apiserver looks at the
// old object too (hadAggregationRule), so that stripping the rule of
// "view" cannot take its rules from everyone bound to it.
func (r Role) AuthorizeWrite(w *resource.Write) error {
	if r.escalation == nil {
		return nil
	}
	var role, old rbacv1.ClusterRole // a Role's fields are a subset
	if err := json.Unmarshal(w.Object, &role); err != nil {
		return fmt.Errorf("decode %s: %w", w.Target.Resource.Plural, err)
	}
	if w.Old != nil {
		if err := json.Unmarshal(w.Old, &old); err != nil {
			return fmt.Errorf("decode stored %s: %w", w.Target.Resource.Plural, err)
		}
	}
	return r.escalation.CheckRole(w.Context(), w.Target.Resource.Plural, w.Target.Namespace, w.Meta.Name,
		role.Rules, hasAggregationRule(&role) || hasAggregationRule(&old))
}

// hasAggregationRule is kube's: a rule with at least one selector.
func hasAggregationRule(role *rbacv1.ClusterRole) bool {
	return role.AggregationRule != nil && len(role.AggregationRule.ClusterRoleSelectors) > 0
}

// AuthorizeWrite refuses a binding of a role its writer does not hold.
func (b Binding) AuthorizeWrite(w *resource.Write) error {
	if b.escalation == nil {
		return nil
	}
	var binding rbacv1.RoleBinding
	if err := json.Unmarshal(w.Object, &binding); err != nil {
		return fmt.Errorf("decode %s: %w", w.Target.Resource.Plural, err)
	}
	return b.escalation.CheckBinding(w.Context(), w.Target.Resource.Plural, w.Target.Namespace, w.Meta.Name, binding.RoleRef)
}

// NameRule is kube's for RBAC objects: any path segment
// ("system:discovery" is one).
func (Role) NameRule() apivalidation.ValidateNameFunc { return rbacName }

// NameRule is kube's for RBAC objects: any path segment.
func (Binding) NameRule() apivalidation.ValidateNameFunc { return rbacName }

func rbacName(name string, prefix bool) []string {
	if prefix {
		return path.IsValidPathSegmentPrefix(name)
	}
	return path.IsValidPathSegmentName(name)
}
