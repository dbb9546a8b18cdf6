package rbac

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/dynapi/dynapi/engine"
)

// TestCheckRole: kube's escalation check and its wording. The missing
// rules are listed compacted (one rule per group and resource, its verbs
// together), sorted; an aggregationRule, new or old, needs every right.
func TestCheckRole(t *testing.T) {
	t.Parallel()
	x, err := Static(
		[]byte(`{"kind":"ClusterRole","metadata":{"name":"holder"},"rules":[
			{"apiGroups":[""],"resources":["secrets"],"resourceNames":["*"],"verbs":["get"]},
			{"apiGroups":["a.io"],"resources":["ws"],"verbs":["get"]},
			{"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles","clusterroles"],"verbs":["create","update"]}]}`),
		[]byte(`{"kind":"ClusterRoleBinding","metadata":{"name":"alice"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"holder"},
			"subjects":[{"kind":"User","name":"alice"}]}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	alice := engine.WithUser(context.Background(), &engine.User{Name: "alice", Groups: []string{"team", "system:authenticated"}})
	const held = `roles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["team" "system:authenticated"]) ` +
		"is attempting to grant RBAC permissions not currently held:\n"
	rule := func(group, resource string, names []string, verbs ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, ResourceNames: names, Verbs: verbs}
	}
	tests := []struct {
		name       string
		rules      []rbacv1.PolicyRule
		aggregated bool
		want       string // "" allowed
	}{
		{"held", []rbacv1.PolicyRule{rule("a.io", "ws", nil, "get")}, false, ""},
		{"the name * held literally", []rbacv1.PolicyRule{rule("", "secrets", []string{"*"}, "get")}, false, ""},
		{"a name under the name *", []rbacv1.PolicyRule{rule("", "secrets", []string{"s1"}, "get")}, false,
			held + `{APIGroups:[""], Resources:["secrets"], ResourceNames:["s1"], Verbs:["get"]}`},
		{"every secret under the name *", []rbacv1.PolicyRule{rule("", "secrets", nil, "get")}, false,
			held + `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`},
		{"compacted and sorted", []rbacv1.PolicyRule{rule("a.io", "ws", nil, "get", "list", "delete"), rule("", "secrets", []string{"s2", "s1"}, "get"),
			rule("a.io", "ws", nil, "list")}, false,
			held + `{APIGroups:[""], Resources:["secrets"], ResourceNames:["s1"], Verbs:["get"]}` + "\n" +
				`{APIGroups:[""], Resources:["secrets"], ResourceNames:["s2"], Verbs:["get"]}` + "\n" +
				`{APIGroups:["a.io"], Resources:["ws"], Verbs:["list" "delete" "list"]}`},
		{"aggregationRule", nil, true,
			`roles.rbac.authorization.k8s.io "r" is forbidden: must have cluster-admin privileges to use the aggregationRule`},
		{"rules first", []rbacv1.PolicyRule{rule("a.io", "ws", nil, "delete")}, true,
			held + `{APIGroups:["a.io"], Resources:["ws"], Verbs:["delete"]}`},
	}
	for _, tt := range tests {
		err := x.CheckRole(alice, "roles", "x", "r", tt.rules, tt.aggregated)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want || (err != nil && engine.ErrorCode(err) != engine.CodeForbidden) {
			t.Errorf("%s:\n got %v\nwant %s", tt.name, err, tt.want)
		}
	}
}
