package main

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/tidwall/gjson"
)

// kube's bootstrap roles: view reads but does not write, edit takes in a
// ClusterRole labelled aggregate-to-edit, every authenticated user reaches
// discovery and the self reviews; and each start reconciles them.
func TestRBACBootstrapRoles(t *testing.T) {
	url, _ := startPostgres(t)
	_, s := startRBAC(t, url)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces/team/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"mode":"fast"}}`)
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"namespaces/team/rolebindings",
		binding("RoleBinding", "team", "bob-views", "ClusterRole", "view", `[{"kind":"User","name":"bob"}]`))
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"namespaces/team/rolebindings",
		binding("RoleBinding", "team", "team-a-edits", "ClusterRole", "edit", `[{"kind":"Group","name":"team-a"}]`))

	s.eventually(http.StatusOK, "bob", "GET", "/api/v1/namespaces/team/configmaps/settings", "")
	s.must(http.StatusOK, "bob", "GET", "/api/v1/namespaces/team/configmaps", "")
	s.must(http.StatusForbidden, "bob", "POST", "/api/v1/namespaces/team/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mine"}}`)
	s.must(http.StatusForbidden, "bob", "GET", "/api/v1/namespaces/team/secrets", "") // view does not read secrets
	s.must(http.StatusForbidden, "bob", "GET", "/api/v1/namespaces/default/configmaps", "")
	s.eventually(http.StatusCreated, "carol", "POST", "/api/v1/namespaces/team/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"carols"}}`)

	// A kind's ClusterRole labelled aggregate-to-edit joins edit (and admin).
	s.must(http.StatusForbidden, "carol", "POST", fmt.Sprintf(widgetsIn, "team"), widget("w1"))
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"clusterroles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
		"metadata":{"name":"widgets-edit","labels":{"rbac.authorization.k8s.io/aggregate-to-edit":"true"}},
		"rules":[{"apiGroups":["shop.example.com"],"resources":["widgets"],"verbs":["create","get","list","watch","update","patch","delete"]}]}`)
	s.eventually(http.StatusCreated, "carol", "POST", fmt.Sprintf(widgetsIn, "team"), widget("w1"))
	s.must(http.StatusForbidden, "bob", "POST", fmt.Sprintf(widgetsIn, "team"), widget("w2"))

	// Discovery and the self reviews, with nothing bound (system:discovery, system:basic-user).
	s.must(http.StatusOK, "bob", "GET", "/apis/authorization.k8s.io/v1", "")
	out := s.must(http.StatusCreated, "bob", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	if gjson.Get(out, "status.userInfo.username").String() != "bob" {
		t.Fatalf("whoami: %s", out)
	}
	out = s.must(http.StatusCreated, "bob", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"namespace":"team","verb":"list","resource":"configmaps"}}}`)
	if !gjson.Get(out, "status.allowed").Bool() {
		t.Fatalf("can-i list configmaps: %s", out)
	}

	// The operator changes two bootstrap roles: one opted out of updates.
	s.must(http.StatusOK, "admin", "PUT", rbacPath+"clusterroles/system:aggregate-to-view", `{"apiVersion":"rbac.authorization.k8s.io/v1",
		"kind":"ClusterRole","metadata":{"name":"system:aggregate-to-view","labels":{"rbac.authorization.k8s.io/aggregate-to-view":"true"}},
		"rules":[{"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["get"]}]}`)
	s.must(http.StatusOK, "admin", "PUT", rbacPath+"clusterroles/system:aggregate-to-edit", `{"apiVersion":"rbac.authorization.k8s.io/v1",
		"kind":"ClusterRole","metadata":{"name":"system:aggregate-to-edit","annotations":{"rbac.authorization.kubernetes.io/autoupdate":"false"},
		"labels":{"rbac.authorization.k8s.io/aggregate-to-edit":"true"}},"rules":[]}`)
	s.eventually(http.StatusForbidden, "bob", "GET", "/api/v1/namespaces/team/configmaps", "")

	// The next start puts back what was taken from the first, keeps what
	// was added, and leaves the second alone.
	_, again := startRBAC(t, url)
	view := again.must(http.StatusOK, "admin", "GET", rbacPath+"clusterroles/system:aggregate-to-view", "")
	for _, rule := range []string{`rules.#(resources.0=="leases")`, `rules.#(resources.0=="configmaps")`, `rules.#(resources.0=="namespaces")`} {
		if !gjson.Get(view, rule).Exists() {
			t.Errorf("reconciled view lacks %s: %s", rule, view)
		}
	}
	if gjson.Get(view, `metadata.labels.kubernetes\.io/bootstrapping`).String() != "rbac-defaults" {
		t.Errorf("reconciled view's labels: %s", view)
	}
	if edit := again.must(http.StatusOK, "admin", "GET", rbacPath+"clusterroles/system:aggregate-to-edit", ""); gjson.Get(edit, "rules.#").Int() != 0 {
		t.Errorf("autoupdate=false changed: %s", edit)
	}
	again.eventually(http.StatusOK, "bob", "GET", "/api/v1/namespaces/team/configmaps", "")
}
