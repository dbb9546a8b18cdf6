package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/testkit/oidctest"
	"github.com/dynapi/dynapi/internal/wait"
)

// Every refused login leaves an audit event with code 401, whatever the
// credentials: a wrong token, a forged OIDC JWT, a certificate of another
// CA; and so does a query refused with 400.
func TestRefusedLoginsAudited(t *testing.T) {
	dir := t.TempDir()
	ca, stranger := newTestCA(t), newTestCA(t)
	serverCert, serverKey := ca.issue(t, "dynapi", nil, net.ParseIP("127.0.0.1"))
	strangerCert, strangerKey := stranger.issue(t, "mallory", []string{"system:masters"})
	issuer := oidctest.New(t)
	logPath := dir + "/audit.log"
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url,
		TLSCertFile: secretFile(t, dir, "server.crt", serverCert), TLSKeyFile: secretFile(t, dir, "server.key", serverKey),
		Security: SecurityConfig{TokenAuthFile: secretFile(t, dir, "tokens.csv", []byte(rbacTokens)), ClientCAFile: secretFile(t, dir, "ca.crt", ca.pem),
			OIDC:              authn.OIDCOptions{IssuerURL: issuer.URL(), ClientID: "dynapi", UsernameClaim: "email", CAFile: issuer.CAFile(t)},
			AuthorizationMode: modeRBAC, AuditPolicyFile: secretFile(t, dir, "policy.yaml", []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")),
			AuditLog: audit.Options{Path: logPath}}})
	base := "https://" + m.Addr() + "/api/v1/namespaces"

	tests := []struct {
		name    string
		client  *http.Client
		path    string
		header  []string
		code    int
		message string
	}{
		{"wrong token", tlsClient(t, ca, nil, nil), "", []string{"Authorization", "Bearer admin-tokem"}, 401, "Authentication failed, attempted: bearer"},
		{"forged JWT", tlsClient(t, ca, nil, nil), "", []string{"Authorization", "Bearer " + forgedJWT(t, issuer)}, 401, "Authentication failed, attempted: bearer"},
		{"foreign certificate", tlsClient(t, ca, strangerCert, strangerKey), "", nil, 401, "Authentication failed, attempted: x509"},
		{"bad query", tlsClient(t, ca, nil, nil), "?labelSelector=%zz", []string{"Authorization", "Bearer admin-token"}, 400,
			`the query string could not be parsed: invalid URL escape "%zz"`},
	}
	ids := map[string]int{}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodGet, base+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(tt.header); i += 2 {
			req.Header.Set(tt.header[i], tt.header[i+1])
		}
		resp, err := tt.client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.code || resp.Header.Get("Audit-Id") == "" {
			t.Fatalf("%s: code %d, Audit-Id %q", tt.name, resp.StatusCode, resp.Header.Get("Audit-Id"))
		}
		ids[resp.Header.Get("Audit-Id")] = len(ids)
	}
	// A refused login's event is written before the answer; the others'
	// ResponseComplete just after theirs.
	var data []byte
	events := map[int]gjson.Result{}
	wait.Eventually(t, 10*time.Second, func() (bool, string) {
		data, _ = os.ReadFile(logPath)
		for line := range strings.Lines(string(data)) {
			if i, ok := ids[gjson.Get(line, "auditID").String()]; ok && gjson.Get(line, "stage").String() != "RequestReceived" {
				events[i] = gjson.Parse(line)
			}
		}
		return len(events) == len(tests), fmt.Sprintf("%d of %d events in:\n%s", len(events), len(tests), data)
	})
	for i, tt := range tests {
		ev := events[i]
		if ev.Get("responseStatus.code").Int() != int64(tt.code) || ev.Get("responseStatus.message").String() != tt.message {
			t.Errorf("%s: event %s", tt.name, ev.Raw)
		}
	}
}

// forgedJWT is a token of issuer for dora whose claims were then changed
// to make her admin: its signature no longer fits.
func forgedJWT(t *testing.T, issuer *oidctest.Issuer) string {
	t.Helper()
	claims := map[string]any{"iss": issuer.URL(), "aud": "dynapi", "sub": "u-7", "email": "dora@example.com", "exp": time.Now().Add(time.Minute).Unix()}
	parts := strings.Split(issuer.Sign(t, "k1", claims), ".")
	claims["email"] = "admin"
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + parts[2]
}

// kubectl --as and --as-group act as the user and groups named, when the
// user asking holds the impersonate verb on them (a ClusterRole bound to
// carol); otherwise they are refused as kube refuses them, and never
// answer or act for the user who asked.
func TestKubectlImpersonation(t *testing.T) {
	needKubectl(t)
	dir := t.TempDir()
	ca := newTestCA(t)
	serverCert, serverKey := ca.issue(t, "dynapi", nil, net.ParseIP("127.0.0.1"))
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url,
		TLSCertFile: secretFile(t, dir, "server.crt", serverCert), TLSKeyFile: secretFile(t, dir, "server.key", serverKey),
		Security: SecurityConfig{TokenAuthFile: secretFile(t, dir, "tokens.csv", []byte(rbacTokens)), AuthorizationMode: modeRBAC}})
	// kubectl sends a token over TLS only.
	as := func(token string) kubectl {
		return kubectl{t: t, server: "https://" + m.Addr(), home: t.TempDir(),
			extra: []string{"--certificate-authority=" + secretFile(t, dir, "ca.crt", ca.pem), "--token=" + token}}
	}
	admin, carol := as("admin-token"), as("carol-token")
	admin.run("create", "namespace", "keep")
	admin.run("create", "clusterrole", "impersonate-bob", "--verb=impersonate", "--resource=users,groups", "--resource-name=bob", "--resource-name=devs")
	admin.run("create", "clusterrolebinding", "carol-impersonates", "--clusterrole=impersonate-bob", "--user=carol")
	admin.run("create", "clusterrolebinding", "devs-view", "--clusterrole=view", "--group=devs")
	const refusal = `users "dave" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope`
	tests := []struct {
		k    kubectl
		args []string
		ok   bool
		want string // in kubectl's output
	}{
		{carol, []string{"--as=bob", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"}, true, "bob"},
		{carol, []string{"--as=bob", "auth", "can-i", "get", "secrets"}, false, "no"},
		{carol, []string{"--as=bob", "--as-group=devs", "auth", "whoami", "-o", "jsonpath={.status.userInfo.groups}"}, true,
			`["devs","system:authenticated"]`},
		{carol, []string{"--as=bob", "--as-group=devs", "get", "namespace", "keep", "-o", "name"}, true, "namespace/keep"},
		{carol, []string{"--as=bob", "delete", "namespace", "keep"}, false, `User "bob" cannot delete resource "namespaces"`},
		{carol, []string{"--as=dave", "auth", "can-i", "get", "secrets"}, false, refusal},
		{carol, []string{"--as=bob", "--as-group=system:masters", "get", "namespaces"}, false, "Error from server (Forbidden)"},
		// system:masters may impersonate anyone, as in kube.
		{admin, []string{"--as=dave", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"}, true, "dave"},
	}
	for _, tt := range tests {
		out, err := tt.k.exec(tt.args...)
		if (err == nil) != tt.ok || !strings.Contains(out, tt.want) {
			t.Errorf("kubectl %s: %v\n%s", strings.Join(tt.args, " "), err, out)
		}
	}
	if out := admin.run("get", "namespace", "keep", "-o", "jsonpath={.status.phase}"); out != "Active" {
		t.Errorf("namespace keep after kubectl --as=bob delete: %q", out)
	}
}
