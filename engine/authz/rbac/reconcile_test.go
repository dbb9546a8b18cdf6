package rbac

import (
	"encoding/json"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

func TestReconcileRole(t *testing.T) {
	t.Parallel()
	const expected = `{"metadata":{"name":"view","labels":{"boot":"yes","aggregate-to-edit":"true"},"annotations":{"` + autoUpdate + `":"true"}},
		"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"to-view":"true"}}]},
		"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","list"]}]}`
	tests := []struct {
		name, existing string
		want           change
		result         string
	}{
		{"as expected", expected, unchanged, ""},
		{"what the operator added is kept",
			`{"metadata":{"name":"view","labels":{"boot":"yes","aggregate-to-edit":"true","mine":"1"},"annotations":{"` + autoUpdate + `":"true"}},
			"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"to-view":"true"}},{"matchLabels":{"mine":"1"}}]},
			"rules":[{"apiGroups":["*"],"resources":["configmaps"],"verbs":["*"]}]}`, unchanged, ""},
		{"what the operator removed is put back, their values kept",
			`{"metadata":{"name":"view","labels":{"boot":"no"}},"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get"]}]}`, update,
			`{"metadata":{"name":"view","labels":{"boot":"no","aggregate-to-edit":"true"},"annotations":{"` + autoUpdate + `":"true"}},
			"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"to-view":"true"}}]},
			"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get"]},{"apiGroups":[""],"resources":["configmaps"],"verbs":["list"]}]}`},
		{"autoupdate false", `{"metadata":{"name":"view","annotations":{"` + autoUpdate + `":"false"}},"rules":[]}`, unchanged, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, c, err := reconciled("ClusterRole", []byte(tt.existing), []byte(expected))
			if err != nil || c != tt.want {
				t.Fatalf("change %v, want %v (%v)", c, tt.want, err)
			}
			if tt.result != "" {
				jsoneq.Assert(t, string(withoutTimestamp(t, body)), tt.result)
			}
		})
	}
}

func TestReconcileBinding(t *testing.T) {
	t.Parallel()
	const expected = `{"metadata":{"name":"system:basic-user","annotations":{"` + autoUpdate + `":"true"}},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:basic-user"},
		"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:authenticated"}]}`
	tests := []struct {
		name, existing string
		want           change
		result         string
	}{
		{"as expected", expected, unchanged, ""},
		{"a subject added is kept", `{"metadata":{"name":"system:basic-user","annotations":{"` + autoUpdate + `":"true"}},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:basic-user"},
			"subjects":[{"kind":"User","name":"bob"},{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:authenticated"}]}`, unchanged, ""},
		{"a subject removed is put back", `{"metadata":{"name":"system:basic-user","annotations":{"` + autoUpdate + `":"true"}},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:basic-user"},"subjects":[{"kind":"User","name":"bob"}]}`, update,
			`{"metadata":{"name":"system:basic-user","annotations":{"` + autoUpdate + `":"true"}},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:basic-user"},
			"subjects":[{"kind":"User","name":"bob"},{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:authenticated"}]}`},
		{"another role: recreated", `{"metadata":{"name":"system:basic-user"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[]}`, recreate, expected},
		{"autoupdate false", `{"metadata":{"name":"system:basic-user","annotations":{"` + autoUpdate + `":"false"}},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}}`, unchanged, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, c, err := reconciled("ClusterRoleBinding", []byte(tt.existing), []byte(expected))
			if err != nil || c != tt.want {
				t.Fatalf("change %v, want %v (%v)", c, tt.want, err)
			}
			if tt.result != "" {
				jsoneq.Assert(t, string(withoutTimestamp(t, body)), tt.result)
			}
		})
	}
}

// withoutTimestamp drops the null creationTimestamp ObjectMeta encodes.
func withoutTimestamp(t *testing.T, body []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	delete(m["metadata"].(map[string]any), "creationTimestamp")
	out, _ := json.Marshal(m)
	return out
}

// admin aggregates edit, which aggregates view: admin holds all three's
// rules, as kube's aggregation controller writes them; a cycle ends.
func TestAggregateChain(t *testing.T) {
	t.Parallel()
	x, err := Static(splitOrFail(t, bootstrapPolicy)...)
	if err != nil {
		t.Fatal(err)
	}
	p := x.policy.Load()
	for role, want := range map[string][]rbacv1.PolicyRule{
		"view": {{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}},
		"edit": {{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list", "create"}},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}},
		"admin": {{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"list", "create"}},
			{APIGroups: []string{Group}, Resources: []string{"rolebindings"}, Verbs: []string{"create"}}},
	} {
		if missing := Uncovered(p.clusterRoles[role], want); len(missing) > 0 {
			t.Errorf("%s lacks %v", role, missing)
		}
	}
	if missing := Uncovered(p.clusterRoles["view"], []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}); len(missing) == 0 {
		t.Errorf("view reads secrets")
	}

	loop, err := Static([]byte(`{"kind":"ClusterRole","metadata":{"name":"a","labels":{"in":"b"}},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"in":"a"}}]}}`),
		[]byte(`{"kind":"ClusterRole","metadata":{"name":"b","labels":{"in":"a"}},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"in":"b"}}]}}`),
		[]byte(`{"kind":"ClusterRole","metadata":{"name":"c","labels":{"in":"b"}},"rules":[{"apiGroups":[""],"resources":["x"],"verbs":["get"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"a", "b"} {
		if got := loop.policy.Load().clusterRoles[role]; len(got) != 1 || got[0].Resources[0] != "x" {
			t.Errorf("%s in a cycle: %v", role, got)
		}
	}
}

func splitOrFail(t *testing.T, data []byte) [][]byte {
	t.Helper()
	docs, err := splitDocuments(data)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}
