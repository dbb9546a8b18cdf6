package main

import (
	"net/http"
	"testing"
)

// TestRBACResourceNamesAllowFieldSelectorName: a list or watch whose field
// selector is metadata.name=X is a request for X, as kube authorizes it,
// so a Role with resourceNames [X] allows it (an operator watching its one
// CA Secret) and refuses every other list.
func TestRBACResourceNamesAllowFieldSelectorName(t *testing.T) {
	url, _ := startPostgres(t)
	_, s := startRBAC(t, url)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"op"}}`)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces/op/secrets", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"ca"}}`)
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"namespaces/op/roles",
		role("Role", "op", "ca-reader", `[{"apiGroups":[""],"resources":["secrets"],"resourceNames":["ca"],"verbs":["get","list","watch"]}]`))
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"namespaces/op/rolebindings",
		binding("RoleBinding", "op", "bob-ca", "Role", "ca-reader", `[{"kind":"User","name":"bob","apiGroup":"rbac.authorization.k8s.io"}]`))

	const secrets = "/api/v1/namespaces/op/secrets"
	tests := []struct {
		name, query string
		want        int
	}{
		{"list of the named secret", "?fieldSelector=metadata.name%3Dca", http.StatusOK},
		{"list with ==", "?fieldSelector=metadata.name%3D%3Dca", http.StatusOK},
		{"watch of the named secret", "?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dca", http.StatusOK},
		{"list of every secret", "", http.StatusForbidden},
		{"watch of every secret", "?watch=true&timeoutSeconds=1", http.StatusForbidden},
		{"list of another name", "?fieldSelector=metadata.name%3Dother", http.StatusForbidden},
		{"list of all but the name", "?fieldSelector=metadata.name!%3Dca", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.eventually(tt.want, "bob", "GET", secrets+tt.query, "")
		})
	}
}
