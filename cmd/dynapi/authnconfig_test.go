package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/testkit/oidctest"
	"github.com/dynapi/dynapi/internal/wait"
)

// --authentication-config with two issuers: each one's tokens
// authenticated as its claim mappings say (also through kubectl auth
// whoami), refusals by a claim and by a user validation rule, a change
// to the file taken without a restart, and a broken edit that leaves the
// previous configuration in force.
func TestAuthenticationConfig(t *testing.T) {
	needKubectl(t)
	corp, ci := oidctest.New(t), oidctest.New(t)
	config := oidctest.Fill(t, "testdata/authentication-config.yaml", corp, ci)
	dir := t.TempDir()
	path := secretFile(t, dir, "authn.yaml", config)
	// TLS, because kubectl sends no token over plain HTTP.
	ca := newTestCA(t)
	cert, key := ca.issue(t, "dynapi", nil, net.ParseIP("127.0.0.1"))
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, TLSCertFile: secretFile(t, dir, "server.crt", cert), TLSKeyFile: secretFile(t, dir, "server.key", key),
		Security: SecurityConfig{AuthorizationMode: modeAlwaysAllow, AuthenticationConfig: path}})
	base, client := "https://"+m.Addr(), tlsClient(t, ca, nil, nil)
	exp := time.Now().Add(time.Hour).Unix()
	corpToken := func(email, tenant string) string {
		return corp.Sign(t, "k1", map[string]any{"iss": corp.URL(), "aud": "dynapi", "sub": "u-1", "email": email,
			"groups": []string{"devs"}, "tenant": tenant, "exp": exp})
	}
	ciToken := ci.Sign(t, "k1", map[string]any{"iss": ci.URL(), "aud": "dynapi", "sub": "build-7", "hd": "example.com",
		"roles": "deployer,reader", "exp": exp})
	who := func(token string) (int, string) {
		return call(t, client, "POST", base+"/apis/authentication.k8s.io/v1/selfsubjectreviews", whoami, "Authorization", "Bearer "+token)
	}

	code, body := who(corpToken("dora@example.com", "acme"))
	wantWho(t, code, body, "corp:dora@example.com", "corp:devs", "system:authenticated")
	code, body = who(ciToken)
	wantWho(t, code, body, "ci:build-7", "deployer", "reader", "system:authenticated")
	code, body = who(corpToken("dora@example.com", "umbrella")) // claim validation rule
	wantUnauthorized(t, code, body)
	code, body = who(corpToken("system:admin", "acme")) // user validation rule
	wantUnauthorized(t, code, body)

	k := kubectl{t: t, server: base, home: t.TempDir(), extra: []string{"--token=" + corpToken("dora@example.com", "acme"),
		"--certificate-authority=" + secretFile(t, dir, "ca.crt", ca.pem)}}
	if out := k.run("auth", "whoami"); !strings.Contains(out, "corp:dora@example.com") || !strings.Contains(out, "corp:devs") {
		t.Fatalf("kubectl auth whoami:\n%s", out)
	}

	// A change: the groups of the company's issuer get another prefix.
	write := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write([]byte(strings.Replace(string(config), `groups: {claim: groups, prefix: "corp:"}`, `groups: {claim: groups, prefix: "idp:"}`, 1)))
	wait.Eventually(t, 30*time.Second, func() (bool, string) {
		code, body := who(corpToken("dora@example.com", "acme"))
		return code == http.StatusCreated && strings.Contains(body, `"idp:devs"`), body
	})
	// A broken edit: logged and counted, the change above stays in force.
	write(append(config, "unknown: field\n"...))
	wait.Eventually(t, 30*time.Second, func() (bool, string) {
		code, metrics := call(t, client, "GET", base+"/metrics", "", "Authorization", "Bearer "+ciToken)
		if code != http.StatusOK {
			t.Fatalf("GET /metrics: %d %s", code, metrics)
		}
		return strings.Contains(metrics, `apiserver_authentication_config_controller_automatic_reloads_total{apiserver_id_hash=`) &&
			strings.Contains(metrics, `status="failure"} 1`), metrics
	})
	code, body = who(corpToken("dora@example.com", "acme"))
	wantWho(t, code, body, "corp:dora@example.com", "idp:devs")
}

// --authentication-config and the --oidc-* flags are mutually exclusive,
// as in kube; --anonymous-auth is refused beside a file's anonymous section.
func TestAuthenticationConfigExclusions(t *testing.T) {
	dir := t.TempDir()
	file := secretFile(t, dir, "authn.yaml", []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous: {enabled: true}\n"))
	for _, args := range [][]string{
		{"--oidc-issuer-url", "https://issuer.example", "--oidc-client-id", "dynapi"},
		{"--oidc-username-claim", "email"},
	} {
		_, err := parseConfig("serve", append([]string{"--authentication-config", file}, args...), func(string) string { return "" }, io.Discard)
		if err == nil || err.Error() != "authentication-config file and oidc-* flags are mutually exclusive" {
			t.Errorf("%v: %v", args, err)
		}
	}
	url, _ := startPostgres(t)
	m := &Main{Config: Config{DatabaseURL: url, Listen: "127.0.0.1:0", Schemas: "../../schemas", Conversions: "../../conversions",
		Security: SecurityConfig{AuthenticationConfig: file, AnonymousAuth: true, AuthorizationMode: modeAlwaysAllow}}, Logger: discardLogger()}
	err := m.Run(t.Context())
	t.Cleanup(func() { _ = m.Close() })
	if err == nil || !strings.Contains(err.Error(), "--anonymous-auth flag cannot be set when anonymous field is configured") {
		t.Fatalf("--anonymous-auth beside the file's anonymous section: %v", err)
	}
	bad := secretFile(t, dir, "bad.yaml", []byte(fmt.Sprintf("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n"+
		"jwt:\n- issuer: {url: %q, audiences: [a]}\n  claimMappings: {username: {claim: sub}}\n", "http://plain.example")))
	m = &Main{Config: Config{DatabaseURL: url, Listen: "127.0.0.1:0", Schemas: "../../schemas", Conversions: "../../conversions",
		Security: SecurityConfig{AuthenticationConfig: bad, AuthorizationMode: modeAlwaysAllow}}, Logger: discardLogger()}
	err = m.Run(t.Context())
	t.Cleanup(func() { _ = m.Close() })
	for _, want := range []string{filepath.Base(bad), "jwt[0].issuer.url", "jwt[0].claimMappings.username.prefix"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("a bad file at start: %v lacks %q", err, want)
		}
	}
}

// The file's anonymous section, with conditions: only the paths they name
// are served without credentials, as kube's anonymous authenticator does.
func TestAuthenticationConfigAnonymous(t *testing.T) {
	file := secretFile(t, t.TempDir(), "authn.yaml", []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n"+
		"anonymous:\n  enabled: true\n  conditions:\n  - path: /version\n"))
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, Security: SecurityConfig{AuthorizationMode: modeAlwaysAllow, AuthenticationConfig: file}})
	base := "http://" + m.Addr()
	if code, body := call(t, http.DefaultClient, "GET", base+"/version", ""); code != http.StatusOK {
		t.Fatalf("GET /version without credentials: %d %s", code, body)
	}
	code, body := call(t, http.DefaultClient, "GET", base+"/api/v1/namespaces", "")
	wantUnauthorized(t, code, body)
}
