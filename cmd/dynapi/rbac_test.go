package main

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// rbacServer is a dynapi with token authentication and RBAC, and tokens
// for an admin (system:masters) and for users who hold nothing at first.
type rbacServer struct {
	t    *testing.T
	base string
}

const rbacTokens = "admin-token,admin,0,system:masters\nbob-token,bob,1\ncarol-token,carol,2,team-a\n"

func startRBAC(t *testing.T, dbURL string) (*Main, *rbacServer) {
	t.Helper()
	tokens := secretFile(t, t.TempDir(), "tokens.csv", []byte(rbacTokens))
	m := startMain(t, Config{DatabaseURL: dbURL, Security: SecurityConfig{TokenAuthFile: tokens, AuthorizationMode: modeRBAC}})
	return m, &rbacServer{t: t, base: "http://" + m.Addr()}
}

// as sends a request as user (its token is user-token).
func (s *rbacServer) as(user, method, path, body string) (int, string) {
	s.t.Helper()
	return call(s.t, http.DefaultClient, method, s.base+path, body, "Authorization", "Bearer "+user+"-token")
}

// must sends a request as user and fails unless it answers want.
func (s *rbacServer) must(want int, user, method, path, body string) string {
	s.t.Helper()
	code, out := s.as(user, method, path, body)
	if code != want {
		s.t.Fatalf("%s %s %s: %d, want %d: %s", user, method, path, code, want, out)
	}
	return out
}

// eventually repeats a request as user until it answers want, for at most
// a second: how soon an RBAC change must take effect.
func (s *rbacServer) eventually(want int, user, method, path, body string) {
	s.t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		code, out := s.as(user, method, path, body)
		if code == want {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s %s %s: still %d after 1s, want %d: %s", user, method, path, code, want, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// can asks, as admin, whether a user may do something (SubjectAccessReview).
func (s *rbacServer) can(user string, groups []string, verb, group, resource, sub, ns, name string) bool {
	s.t.Helper()
	g := "[]"
	if len(groups) > 0 {
		g = `["` + strings.Join(groups, `","`) + `"]`
	}
	body := fmt.Sprintf(`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":%q,"groups":%s,
		"resourceAttributes":{"verb":%q,"group":%q,"resource":%q,"subresource":%q,"namespace":%q,"name":%q}}}`,
		user, g, verb, group, resource, sub, ns, name)
	out := s.must(http.StatusCreated, "admin", "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", body)
	return gjson.Get(out, "status.allowed").Bool()
}

const widgetsIn = "/apis/shop.example.com/v1/namespaces/%s/widgets"

func widget(name string) string {
	return `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"color":"green","size":3}}`
}

func role(kind, ns, name, rules string) string {
	meta := `{"name":"` + name + `"}`
	if ns != "" {
		meta = `{"name":"` + name + `","namespace":"` + ns + `"}`
	}
	return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"` + kind + `","metadata":` + meta + `,"rules":` + rules + `}`
}

func binding(kind, ns, name, roleKind, roleName, subjects string) string {
	meta := `{"name":"` + name + `"}`
	if ns != "" {
		meta = `{"name":"` + name + `","namespace":"` + ns + `"}`
	}
	return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"` + kind + `","metadata":` + meta +
		`,"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"` + roleKind + `","name":"` + roleName + `"},"subjects":` + subjects + `}`
}

const rbacPath = "/apis/rbac.authorization.k8s.io/v1/"

func TestRBACForbiddenThenBound(t *testing.T) {
	url, _ := startPostgres(t)
	_, s := startRBAC(t, url)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}`)

	code, body := s.as("bob", "POST", fmt.Sprintf(widgetsIn, "x"), widget("w1"))
	want := `widgets.shop.example.com is forbidden: User "bob" cannot create resource "widgets" in API group "shop.example.com" in the namespace "x"`
	if code != http.StatusForbidden || gjson.Get(body, "message").String() != want || gjson.Get(body, "reason").String() != "Forbidden" ||
		gjson.Get(body, "details.kind").String() != "widgets" || gjson.Get(body, "details.group").String() != "shop.example.com" {
		t.Fatalf("forbidden create: %d %s", code, body)
	}
	code, body = s.as("bob", "GET", "/apis/shop.example.com/v1/namespaces/x/widgets/w1", "")
	if code != http.StatusForbidden || !strings.HasPrefix(gjson.Get(body, "message").String(), `widgets.shop.example.com "w1" is forbidden: User "bob" cannot get`) {
		t.Fatalf("forbidden get: %d %s", code, body)
	}
	code, body = s.as("bob", "GET", "/metrics", "")
	if code != http.StatusForbidden || gjson.Get(body, "message").String() != `forbidden: User "bob" cannot get path "/metrics"` {
		t.Fatalf("forbidden path: %d %s", code, body)
	}
	// Discovery and the self reviews are every authenticated user's.
	s.must(http.StatusOK, "bob", "GET", "/apis", "")
	s.must(http.StatusOK, "bob", "GET", "/api/v1", "")

	s.must(http.StatusCreated, "admin", "POST", rbacPath+"namespaces/x/roles",
		role("Role", "x", "widget-writer", `[{"apiGroups":["shop.example.com"],"resources":["widgets"],"verbs":["create","get","list","watch"]}]`))
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"namespaces/x/rolebindings",
		binding("RoleBinding", "x", "bob-writes", "Role", "widget-writer", `[{"kind":"User","name":"bob"}]`))
	s.eventually(http.StatusCreated, "bob", "POST", fmt.Sprintf(widgetsIn, "x"), widget("w1"))
	s.must(http.StatusOK, "bob", "GET", fmt.Sprintf(widgetsIn, "x")+"/w1", "")
	s.must(http.StatusOK, "bob", "GET", fmt.Sprintf(widgetsIn, "x"), "")
	// Bound in one namespace only: not in another, nor across all.
	s.must(http.StatusForbidden, "bob", "GET", "/apis/shop.example.com/v1/widgets", "")
	s.must(http.StatusForbidden, "bob", "GET", "/apis/shop.example.com/v1/widgets?watch=true", "")
	s.must(http.StatusForbidden, "bob", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"y"}}`)
	s.must(http.StatusForbidden, "bob", "DELETE", fmt.Sprintf(widgetsIn, "x")+"/w1", "")
	// A watch in the namespace is allowed, and streams.
	req, _ := http.NewRequest("GET", s.base+fmt.Sprintf(widgetsIn, "x")+"?watch=true", nil)
	req.Header.Set("Authorization", "Bearer bob-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: %v %v", resp, err)
	}
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	resp.Body.Close()
	if !strings.Contains(line, `"ADDED"`) || !strings.Contains(line, `"w1"`) {
		t.Fatalf("watch event: %s", line)
	}
	// The binding removed, bob is refused again.
	s.must(http.StatusOK, "admin", "DELETE", rbacPath+"namespaces/x/rolebindings/bob-writes", "")
	s.eventually(http.StatusForbidden, "bob", "GET", fmt.Sprintf(widgetsIn, "x")+"/w1", "")
}

func TestRBACRuleShapes(t *testing.T) {
	url, _ := startPostgres(t)
	_, s := startRBAC(t, url)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}`)
	create := func(path, body string) { s.must(http.StatusCreated, "admin", "POST", rbacPath+path, body) }
	create("clusterroles", role("ClusterRole", "", "named", `[{"apiGroups":["shop.example.com"],"resources":["widgets"],"resourceNames":["w1"],"verbs":["get"]}]`))
	create("clusterroles", role("ClusterRole", "", "status", `[{"apiGroups":["shop.example.com"],"resources":["widgets/status"],"verbs":["update"]},{"apiGroups":["*"],"resources":["*/scale"],"verbs":["get"]}]`))
	create("clusterroles", role("ClusterRole", "", "any", `[{"apiGroups":["*"],"resources":["*"],"verbs":["list"]}]`))
	create("clusterroles", role("ClusterRole", "", "urls", `[{"nonResourceURLs":["/metrics","/debug/*"],"verbs":["get"]}]`))
	create("clusterroles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"aggregate"},
		"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"example.com/aggregate":"true"}}]}}`)
	create("clusterroles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"part","labels":{"example.com/aggregate":"true"}},
		"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["delete"]}]}`)
	create("namespaces/x/rolebindings", binding("RoleBinding", "x", "named", "ClusterRole", "named", `[{"kind":"User","name":"u1"}]`))
	create("namespaces/x/rolebindings", binding("RoleBinding", "x", "status", "ClusterRole", "status", `[{"kind":"Group","name":"team-a"}]`))
	create("clusterrolebindings", binding("ClusterRoleBinding", "", "any", "ClusterRole", "any", `[{"kind":"ServiceAccount","name":"robot","namespace":"x"}]`))
	create("clusterrolebindings", binding("ClusterRoleBinding", "", "urls", "ClusterRole", "urls", `[{"kind":"User","name":"bob"}]`))
	create("namespaces/x/rolebindings", binding("RoleBinding", "x", "aggregate", "ClusterRole", "aggregate", `[{"kind":"ServiceAccount","name":"builder"}]`))

	time.Sleep(100 * time.Millisecond) // the admin's writes reach the index
	robot, builder := "system:serviceaccount:x:robot", "system:serviceaccount:x:builder"
	tests := []struct {
		name                           string
		user                           string
		groups                         []string
		verb, group, res, sub, ns, obj string
		want                           bool
	}{
		{"resourceName", "u1", nil, "get", "shop.example.com", "widgets", "", "x", "w1", true},
		{"other name", "u1", nil, "get", "shop.example.com", "widgets", "", "x", "w2", false},
		{"no name (list)", "u1", nil, "list", "shop.example.com", "widgets", "", "x", "", false},
		{"other namespace", "u1", nil, "get", "shop.example.com", "widgets", "", "y", "w1", false},
		{"subresource by group", "someone", []string{"team-a"}, "update", "shop.example.com", "widgets", "status", "x", "w", true},
		{"not the main resource", "someone", []string{"team-a"}, "update", "shop.example.com", "widgets", "", "x", "w", false},
		{"*/scale", "someone", []string{"team-a"}, "get", "apps", "deployments", "scale", "x", "d", true},
		{"wildcards, cluster-wide, service account", robot, nil, "list", "any.group", "things", "", "", "", true},
		{"wildcards in a namespace", robot, nil, "list", "", "secrets", "", "y", "", true},
		{"verb not granted", robot, nil, "watch", "", "secrets", "", "y", "", false},
		{"service account elsewhere", "system:serviceaccount:y:robot", nil, "list", "", "secrets", "", "", "", false},
		{"aggregated", builder, nil, "delete", "", "configmaps", "", "x", "c", true},
		{"aggregated, other verb", builder, nil, "get", "", "configmaps", "", "x", "c", false},
		{"masters", "root", []string{"system:masters"}, "delete", "any", "thing", "", "", "", true},
	}
	for _, tt := range tests {
		if got := s.can(tt.user, tt.groups, tt.verb, tt.group, tt.res, tt.sub, tt.ns, tt.obj); got != tt.want {
			t.Errorf("%s: allowed = %v, want %v", tt.name, got, tt.want)
		}
	}
	s.must(http.StatusOK, "bob", "GET", "/metrics", "")
	s.must(http.StatusNotFound, "bob", "GET", "/debug/nothing", "")
	s.must(http.StatusForbidden, "carol", "GET", "/metrics", "")
}

// TestRBACEscalation: no one grants more than they hold, as kube-apiserver
// checks it; each attempt is refused with kube's wording, and what the
// writer holds passes.
func TestRBACEscalation(t *testing.T) {
	url, _ := startPostgres(t)
	_, s := startRBAC(t, url)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}`)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces/x/secrets", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"}}`)
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"namespaces/x/roles", role("Role", "x", "rbac-manager",
		`[{"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles","rolebindings"],"verbs":["create","get","update","delete"]},`+
			`{"apiGroups":["shop.example.com"],"resources":["widgets"],"verbs":["get","list"]},`+
			`{"apiGroups":[""],"resources":["secrets"],"resourceNames":["*"],"verbs":["get"]}]`))
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"namespaces/x/rolebindings",
		binding("RoleBinding", "x", "bob", "Role", "rbac-manager", `[{"kind":"User","name":"bob"}]`))
	// bob may update ClusterRoles, but not escalate them.
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"clusterroles", role("ClusterRole", "", "clusterrole-editor",
		`[{"apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"],"verbs":["get","create","update"]},`+
			`{"apiGroups":["shop.example.com"],"resources":["widgets"],"verbs":["get"]}]`))
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"clusterrolebindings",
		binding("ClusterRoleBinding", "", "bob", "ClusterRole", "clusterrole-editor", `[{"kind":"User","name":"bob"}]`))
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"clusterroles", role("ClusterRole", "", "plain",
		`[{"apiGroups":["shop.example.com"],"resources":["widgets"],"verbs":["get"]}]`))
	s.eventually(http.StatusOK, "bob", "GET", fmt.Sprintf(widgetsIn, "x"), "")
	s.eventually(http.StatusOK, "bob", "GET", rbacPath+"clusterroles/view", "")

	const held = `is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` + "\n"
	const aggregation = `clusterroles.rbac.authorization.k8s.io "view" is forbidden: must have cluster-admin privileges to use the aggregationRule`
	aggregated := func(name, selectors string) string {
		return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"` + name + `"},` +
			`"aggregationRule":{"clusterRoleSelectors":` + selectors + `}}`
	}
	tests := []struct {
		name, user, method, path, body string
		code                           int
		message                        string // the whole message, when set
	}{
		// resourceNames ["*"] is the name "*" to authorization, so to the check too.
		{"a secret under the name *", "bob", "POST", rbacPath + "namespaces/x/roles",
			role("Role", "x", "s1-reader", `[{"apiGroups":[""],"resources":["secrets"],"resourceNames":["s1"],"verbs":["get"]}]`),
			http.StatusForbidden, `roles.rbac.authorization.k8s.io "s1-reader" ` + held +
				`{APIGroups:[""], Resources:["secrets"], ResourceNames:["s1"], Verbs:["get"]}`},
		{"every secret under the name *", "bob", "POST", rbacPath + "namespaces/x/roles",
			role("Role", "x", "secret-reader", `[{"apiGroups":[""],"resources":["secrets"],"verbs":["get"]}]`),
			http.StatusForbidden, `roles.rbac.authorization.k8s.io "secret-reader" ` + held +
				`{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`},
		{"the name * itself", "bob", "POST", rbacPath + "namespaces/x/roles",
			role("Role", "x", "star-reader", `[{"apiGroups":[""],"resources":["secrets"],"resourceNames":["*"],"verbs":["get"]}]`),
			http.StatusCreated, ""},
		{"nor does it read s1", "bob", "GET", "/api/v1/namespaces/x/secrets/s1", "", http.StatusForbidden, ""},
		{"verbs not held, listed together", "bob", "POST", rbacPath + "namespaces/x/roles",
			role("Role", "x", "deleter", `[{"apiGroups":["shop.example.com"],"resources":["widgets"],"verbs":["get","delete","patch"]}]`),
			http.StatusForbidden, `roles.rbac.authorization.k8s.io "deleter" ` + held +
				`{APIGroups:["shop.example.com"], Resources:["widgets"], Verbs:["delete" "patch"]}`},
		{"a role bob holds", "bob", "POST", rbacPath + "namespaces/x/roles",
			role("Role", "x", "reader", `[{"apiGroups":["shop.example.com"],"resources":["widgets"],"verbs":["get"]}]`), http.StatusCreated, ""},
		{"an update adding a verb", "bob", "PUT", rbacPath + "namespaces/x/roles/reader",
			role("Role", "x", "reader", `[{"apiGroups":["shop.example.com"],"resources":["widgets"],"verbs":["get","update"]}]`),
			http.StatusForbidden, `roles.rbac.authorization.k8s.io "reader" ` + held +
				`{APIGroups:["shop.example.com"], Resources:["widgets"], Verbs:["update"]}`},
		{"binding a role bob holds", "bob", "POST", rbacPath + "namespaces/x/rolebindings",
			binding("RoleBinding", "x", "carol-reads", "Role", "reader", `[{"kind":"User","name":"carol"}]`), http.StatusCreated, ""},
		{"binding cluster-admin", "bob", "POST", rbacPath + "namespaces/x/rolebindings",
			binding("RoleBinding", "x", "bob-admin", "ClusterRole", "cluster-admin", `[{"kind":"User","name":"bob"}]`),
			http.StatusForbidden, `rolebindings.rbac.authorization.k8s.io "bob-admin" ` + held +
				`{APIGroups:["*"], Resources:["*"], Verbs:["*"]}` + "\n" + `{NonResourceURLs:["*"], Verbs:["*"]}`},
		{"binding a role that does not exist", "bob", "POST", rbacPath + "namespaces/x/rolebindings",
			binding("RoleBinding", "x", "ghost", "ClusterRole", "not-yet", `[{"kind":"User","name":"bob"}]`), http.StatusForbidden, ""},
		// An aggregationRule, set or removed, needs every right: stripping
		// view's would take its rules from everyone bound to it.
		{"stripping view's aggregationRule", "bob", "PUT", rbacPath + "clusterroles/view",
			role("ClusterRole", "", "view", `[]`), http.StatusForbidden, aggregation},
		{"changing view's selectors", "bob", "PUT", rbacPath + "clusterroles/view",
			aggregated("view", `[{"matchLabels":{"example.com/mine":"true"}}]`), http.StatusForbidden, aggregation},
		{"a new aggregationRule", "bob", "POST", rbacPath + "clusterroles",
			aggregated("gather", `[{"matchLabels":{"example.com/mine":"true"}}]`), http.StatusForbidden,
			`clusterroles.rbac.authorization.k8s.io "gather" is forbidden: must have cluster-admin privileges to use the aggregationRule`},
		{"updating a plain ClusterRole within bob's rights", "bob", "PUT", rbacPath + "clusterroles/plain",
			role("ClusterRole", "", "plain", `[]`), http.StatusOK, ""},
		{"the admin binds cluster-admin", "admin", "POST", rbacPath + "namespaces/x/rolebindings",
			binding("RoleBinding", "x", "bob-admin", "ClusterRole", "cluster-admin", `[{"kind":"User","name":"bob"}]`), http.StatusCreated, ""},
		{"the admin strips view's aggregationRule", "admin", "PUT", rbacPath + "clusterroles/view",
			role("ClusterRole", "", "view", `[]`), http.StatusOK, ""},
	}
	for _, tt := range tests {
		code, body := s.as(tt.user, tt.method, tt.path, tt.body)
		msg := gjson.Get(body, "message").String()
		if code != tt.code || (tt.message != "" && msg != tt.message) ||
			(code == http.StatusForbidden && gjson.Get(body, "reason").String() != "Forbidden") {
			t.Errorf("%s: %d %s\nwant %d %s", tt.name, code, msg, tt.code, tt.message)
		}
	}
}

// A binding made through one process takes effect on another within a
// second.
func TestRBACAcrossProcesses(t *testing.T) {
	url, _ := startPostgres(t)
	_, a := startRBAC(t, url)
	_, b := startRBAC(t, url)
	b.must(http.StatusForbidden, "carol", "GET", "/api/v1/namespaces", "")
	a.must(http.StatusCreated, "admin", "POST", rbacPath+"clusterroles", role("ClusterRole", "", "ns-reader",
		`[{"apiGroups":[""],"resources":["namespaces"],"verbs":["list"]}]`))
	a.must(http.StatusCreated, "admin", "POST", rbacPath+"clusterrolebindings",
		binding("ClusterRoleBinding", "", "team-a", "ClusterRole", "ns-reader", `[{"kind":"Group","name":"team-a"}]`))
	b.eventually(http.StatusOK, "carol", "GET", "/api/v1/namespaces", "")
}
