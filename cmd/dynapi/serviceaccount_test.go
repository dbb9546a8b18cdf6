package main

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/internal/wait"
)

const tokenRequest = `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":600}}`

// token asks, as admin, for a token of the ServiceAccount ns/name.
func (s *rbacServer) token(ns, name string) string {
	s.t.Helper()
	out := s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces/"+ns+"/serviceaccounts/"+name+"/token", tokenRequest)
	token := gjson.Get(out, "status.token").String()
	if token == "" || gjson.Get(out, "spec.expirationSeconds").Int() != 600 || gjson.Get(out, "status.expirationTimestamp").String() == "" {
		s.t.Fatalf("token request: %s", out)
	}
	return token
}

// bearer sends a request with token.
func (s *rbacServer) bearer(token, method, path, body string) (int, string) {
	s.t.Helper()
	return call(s.t, http.DefaultClient, method, s.base+path, body, "Authorization", "Bearer "+token)
}

// TestServiceAccountTokens: a token from TokenRequest authenticates as
// its ServiceAccount, is authorized by a RoleBinding to it, is verified
// by TokenReview and by the published key set, and dies with its
// ServiceAccount: one re-created under the same name has another uid.
func TestServiceAccountTokens(t *testing.T) {
	url, _ := startPostgres(t)
	_, s := startRBAC(t, url)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ops"}}`)
	const robot = `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"}}`
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces/ops/serviceaccounts", robot)
	token := s.token("ops", "robot")

	// Who it is, as kube says it.
	code, out := s.bearer(token, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	info := gjson.Get(out, "status.userInfo")
	if code != http.StatusCreated || info.Get("username").String() != "system:serviceaccount:ops:robot" ||
		info.Get("groups").Raw != `["system:serviceaccounts","system:serviceaccounts:ops","system:authenticated"]` ||
		!strings.HasPrefix(info.Get(`extra.authentication\.kubernetes\.io/credential-id.0`).String(), "JTI=") || info.Get("uid").String() == "" {
		t.Fatalf("whoami: %d %s", code, out)
	}

	// Authorized by a RoleBinding to it, not before.
	const configMaps = "/api/v1/namespaces/ops/configmaps"
	code, out = s.bearer(token, "GET", configMaps, "")
	if code != http.StatusForbidden || !strings.Contains(out, `User \"system:serviceaccount:ops:robot\" cannot list resource \"configmaps\"`) {
		t.Fatalf("before the binding: %d %s", code, out)
	}
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"namespaces/ops/roles", role("Role", "ops", "cm", `[{"apiGroups":[""],"resources":["configmaps"],"verbs":["list"]}]`))
	s.must(http.StatusCreated, "admin", "POST", rbacPath+"namespaces/ops/rolebindings",
		binding("RoleBinding", "ops", "robot-cm", "Role", "cm", `[{"kind":"ServiceAccount","name":"robot","namespace":"ops"}]`))
	eventuallyBearer(t, s, http.StatusOK, token, configMaps)

	// TokenReview: valid for the API's audience, not for another.
	review := func(audiences string) gjson.Result {
		body := `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"` + token + `","audiences":` + audiences + `}}`
		return gjson.Get(s.must(http.StatusCreated, "admin", "POST", "/apis/authentication.k8s.io/v1/tokenreviews", body), "status")
	}
	if st := review(`[]`); !st.Get("authenticated").Bool() || st.Get("user.username").String() != "system:serviceaccount:ops:robot" ||
		st.Get("audiences").Raw != `["https://kubernetes.default.svc.cluster.local"]` {
		t.Fatalf("token review: %s", st.Raw)
	}
	if st := review(`["vault"]`); st.Get("authenticated").Bool() || !strings.Contains(st.Get("error").String(), "invalid for the target audiences") {
		t.Fatalf("token review for another audience: %s", st.Raw)
	}

	verifyWithJWKS(t, s, token)

	// Deleted and re-created, the ServiceAccount has another uid: the old
	// token is refused, a new one works.
	s.must(http.StatusOK, "admin", "DELETE", "/api/v1/namespaces/ops/serviceaccounts/robot", "")
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces/ops/serviceaccounts", robot)
	if code, out := s.bearer(token, "GET", configMaps, ""); code != http.StatusUnauthorized {
		t.Fatalf("token of the deleted ServiceAccount: %d %s", code, out)
	}
	if code, out := s.bearer(s.token("ops", "robot"), "GET", configMaps, ""); code != http.StatusOK {
		t.Fatalf("token of the re-created ServiceAccount: %d %s", code, out)
	}
}

// eventuallyBearer repeats a GET with token until it answers want (an
// RBAC change takes effect within a second).
func eventuallyBearer(t *testing.T, s *rbacServer, want int, token, path string) {
	t.Helper()
	wait.Eventually(t, time.Second, func() (bool, string) {
		code, out := s.bearer(token, "GET", path, "")
		return code == want, fmt.Sprintf("GET %s: %d, want %d: %s", path, code, want, out)
	})
}

// verifyWithJWKS checks the token's RS256 signature with the key the
// issuer's discovery publishes under its kid, as a relying party would,
// with nothing but the standard library. The discovery documents are
// readable by service accounts (kube's bootstrap binding), not by
// unauthenticated clients.
func verifyWithJWKS(t *testing.T, s *rbacServer, token string) {
	t.Helper()
	if code, _ := call(t, http.DefaultClient, "GET", s.base+"/openid/v1/jwks", ""); code != http.StatusUnauthorized {
		t.Fatalf("unauthenticated JWKS: %d", code)
	}
	code, config := s.bearer(token, "GET", "/.well-known/openid-configuration", "")
	if code != http.StatusOK || gjson.Get(config, "issuer").String() != "https://kubernetes.default.svc.cluster.local" ||
		gjson.Get(config, "jwks_uri").String() != "https://kubernetes.default.svc.cluster.local/openid/v1/jwks" ||
		gjson.Get(config, "id_token_signing_alg_values_supported").Raw != `["RS256"]` {
		t.Fatalf("openid configuration: %d %s", code, config)
	}
	code, jwks := s.bearer(token, "GET", "/openid/v1/jwks", "")
	if code != http.StatusOK {
		t.Fatalf("jwks: %d %s", code, jwks)
	}
	parts := strings.Split(token, ".")
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	key := gjson.Get(jwks, fmt.Sprintf(`keys.#(kid==%q)`, gjson.GetBytes(header, "kid").String()))
	if gjson.GetBytes(header, "alg").String() != "RS256" || key.Get("kty").String() != "RSA" || key.Get("use").String() != "sig" {
		t.Fatalf("header %s, key %s", header, key.Raw)
	}
	n, _ := base64.RawURLEncoding.DecodeString(key.Get("n").String())
	e, _ := base64.RawURLEncoding.DecodeString(key.Get("e").String())
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], sig); err != nil {
		t.Fatalf("signature does not verify with the published key: %v", err)
	}
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if c := gjson.ParseBytes(claims); c.Get("sub").String() != "system:serviceaccount:ops:robot" ||
		c.Get(`kubernetes\.io.serviceaccount.name`).String() != "robot" || c.Get(`kubernetes\.io.serviceaccount.uid`).String() == "" {
		t.Fatalf("claims: %s", claims)
	}
}

// kubectl create token issues a token that kubectl can use: a
// ServiceAccount's kubeconfig in three commands.
func TestKubectlCreateToken(t *testing.T) {
	needKubectl(t)
	dir := t.TempDir()
	ca := newTestCA(t)
	serverCert, serverKey := ca.issue(t, "dynapi", nil, net.ParseIP("127.0.0.1"))
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url,
		TLSCertFile: secretFile(t, dir, "server.crt", serverCert), TLSKeyFile: secretFile(t, dir, "server.key", serverKey),
		Security: SecurityConfig{TokenAuthFile: secretFile(t, dir, "tokens.csv", []byte(rbacTokens)), AuthorizationMode: modeRBAC}})
	caFile := secretFile(t, dir, "ca.crt", ca.pem)
	as := func(token string) kubectl {
		return kubectl{t: t, server: "https://" + m.Addr(), home: t.TempDir(), extra: []string{"--certificate-authority=" + caFile, "--token=" + token}}
	}
	admin := as("admin-token")
	admin.run("create", "namespace", "ops")
	admin.run("create", "serviceaccount", "robot", "-n", "ops")
	token := strings.TrimSpace(admin.run("create", "token", "robot", "-n", "ops", "--duration=20m"))
	robot := as(token)
	if out := robot.run("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); out != "system:serviceaccount:ops:robot" {
		t.Fatalf("whoami with the token: %q", out)
	}
	if out, err := robot.exec("get", "configmaps", "-n", "ops"); err == nil || !strings.Contains(out, "Forbidden") {
		t.Fatalf("robot before its binding: %v\n%s", err, out)
	}
	admin.run("create", "rolebinding", "robot-view", "-n", "ops", "--clusterrole=view", "--serviceaccount=ops:robot")
	if out, err := robot.exec("get", "serviceaccounts", "-n", "ops", "-o", "name"); err != nil || !strings.Contains(out, "serviceaccount/robot") {
		t.Fatalf("robot with its binding: %v\n%s", err, out)
	}
	// docs/security.md's kubeconfig of a service account.
	kubeconfig := secretFile(t, dir, "robot.kubeconfig", []byte(`apiVersion: v1
kind: Config
clusters: [{name: dynapi, cluster: {server: "https://`+m.Addr()+`", certificate-authority: ca.crt}}]
users: [{name: robot, user: {token: "`+token+`"}}]
contexts: [{name: robot, context: {cluster: dynapi, user: robot, namespace: ops}}]
current-context: robot
`))
	cmd := exec.Command("kubectl", "get", "serviceaccounts", "-o", "name")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "serviceaccount/robot") {
		t.Fatalf("kubectl with the robot's kubeconfig: %v\n%s", err, out)
	}
	if out, err := admin.exec("create", "token", "robot", "-n", "ops", "--duration=1m"); err == nil ||
		!strings.Contains(out, "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes") {
		t.Fatalf("a token for a minute: %v\n%s", err, out)
	}
}

// Processes serving one database sign with the one key generated at the
// first start and kept in it: a token issued by one authenticates on the
// other.
func TestServiceAccountKeySharedByProcesses(t *testing.T) {
	url, _ := startPostgres(t)
	_, first := startRBAC(t, url)
	_, second := startRBAC(t, url)
	first.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces/default/serviceaccounts", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"}}`)
	token := first.token("default", "robot")
	code, out := second.bearer(token, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	if code != http.StatusCreated || gjson.Get(out, "status.userInfo.username").String() != "system:serviceaccount:default:robot" {
		t.Fatalf("the first process's token on the second: %d %s", code, out)
	}
	_, firstKeys := first.bearer(token, "GET", "/openid/v1/jwks", "")
	if _, secondKeys := second.bearer(token, "GET", "/openid/v1/jwks", ""); secondKeys != firstKeys {
		t.Fatalf("key sets differ:\n%s\n%s", firstKeys, secondKeys)
	}
}

// Every namespace has a ServiceAccount named default, created with it and
// again when it is deleted, as kube's controller keeps it; the system
// namespaces have one from the start.
func TestDefaultServiceAccount(t *testing.T) {
	url, _ := startPostgres(t)
	_, s := startRBAC(t, url)
	s.must(http.StatusCreated, "admin", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fresh"}}`)
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease", "fresh"} {
		s.eventually(http.StatusOK, "admin", "GET", "/api/v1/namespaces/"+ns+"/serviceaccounts/default", "")
	}
	first := gjson.Get(s.must(http.StatusOK, "admin", "GET", "/api/v1/namespaces/fresh/serviceaccounts/default", ""), "metadata.uid").String()
	s.must(http.StatusOK, "admin", "DELETE", "/api/v1/namespaces/fresh/serviceaccounts/default", "")
	s.eventually(http.StatusOK, "admin", "GET", "/api/v1/namespaces/fresh/serviceaccounts/default", "")
	again := gjson.Get(s.must(http.StatusOK, "admin", "GET", "/api/v1/namespaces/fresh/serviceaccounts/default", ""), "metadata.uid").String()
	if again == first {
		t.Fatalf("default ServiceAccount not re-created: uid %s", again)
	}
	// Its token works at once.
	s.token("fresh", "default")
}

// The audit log traces a token to its issue, as kube's: the TokenRequest's
// event names the credential id issued, and the events of requests made
// with the token carry it in user.extra.
func TestServiceAccountTokenAudited(t *testing.T) {
	dir := t.TempDir()
	logPath := dir + "/audit.log"
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, Security: SecurityConfig{
		TokenAuthFile: secretFile(t, dir, "tokens.csv", []byte(rbacTokens)), AuthorizationMode: modeRBAC,
		AuditPolicyFile: secretFile(t, dir, "policy.yaml", []byte(auditPolicy)), AuditLog: audit.Options{Path: logPath}}})
	s := &rbacServer{t: t, base: "http://" + m.Addr()}
	s.eventually(http.StatusOK, "admin", "GET", "/api/v1/namespaces/default/serviceaccounts/default", "")
	token := s.token("default", "default")
	code, _ := s.bearer(token, "GET", "/api/v1/namespaces/default/configmaps", "")
	if code != http.StatusForbidden {
		t.Fatalf("default ServiceAccount listing configmaps: %d", code)
	}
	var issued, used string
	wait.Eventually(t, 5*time.Second, func() (bool, string) {
		data, err := os.ReadFile(logPath)
		if err != nil {
			return false, err.Error()
		}
		for line := range strings.Lines(string(data)) {
			ev := gjson.Parse(line)
			switch {
			case ev.Get("stage").String() != "ResponseComplete":
			case ev.Get("objectRef.subresource").String() == "token":
				issued = ev.Get(`annotations.authentication\.kubernetes\.io/issued-credential-id`).String()
			case ev.Get("user.username").String() == "system:serviceaccount:default:default":
				used = ev.Get(`user.extra.authentication\.kubernetes\.io/credential-id.0`).String()
			}
		}
		return issued != "" && used != "", "audit log:\n" + string(data)
	})
	if !strings.HasPrefix(issued, "JTI=") || issued != used {
		t.Fatalf("issued %q, used %q", issued, used)
	}
}
