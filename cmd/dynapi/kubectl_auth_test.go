package main

import (
	"net"
	"strings"
	"testing"
	"time"
)

// kubectl auth can-i, can-i --list and whoami against RBAC, with a token
// and with a client certificate; a forbidden create succeeds once an admin
// binds the role with kubectl create rolebinding.
func TestKubectlAuth(t *testing.T) {
	needKubectl(t)
	dir := t.TempDir()
	ca := newTestCA(t)
	serverCert, serverKey := ca.issue(t, "dynapi", nil, net.ParseIP("127.0.0.1"))
	carolCert, carolKey := ca.issue(t, "carol", []string{"team-a"})
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url,
		TLSCertFile: secretFile(t, dir, "server.crt", serverCert), TLSKeyFile: secretFile(t, dir, "server.key", serverKey),
		Security: SecurityConfig{TokenAuthFile: secretFile(t, dir, "tokens.csv", []byte(rbacTokens)),
			ClientCAFile: secretFile(t, dir, "ca.crt", ca.pem), AuthorizationMode: modeRBAC}})
	server := "https://" + m.Addr()
	caFile := secretFile(t, dir, "ca-for-kubectl.crt", ca.pem)
	as := func(user string) kubectl {
		return kubectl{t: t, server: server, home: t.TempDir(), extra: []string{"--certificate-authority=" + caFile, "--token=" + user + "-token"}}
	}
	admin, bob := as("admin"), as("bob")
	carol := kubectl{t: t, server: server, home: t.TempDir(), extra: []string{"--certificate-authority=" + caFile,
		"--client-certificate=" + secretFile(t, dir, "carol.crt", carolCert), "--client-key=" + secretFile(t, dir, "carol.key", carolKey)}}

	admin.run("create", "namespace", "tour")
	admin.run("create", "role", "widget-writer", "-n", "tour", "--verb=create,get,list", "--resource=widgets.shop.example.com")

	want := func(out string, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if !strings.Contains(out, s) {
				t.Fatalf("output lacks %q:\n%s", s, out)
			}
		}
	}
	want(bob.run("auth", "whoami"), "bob", "system:authenticated")
	want(carol.run("auth", "whoami"), "carol", "team-a", "system:authenticated")
	out, err := bob.exec("auth", "can-i", "create", "widgets.shop.example.com", "-n", "tour")
	if err == nil || !strings.Contains(out, "no") {
		t.Fatalf("can-i before the binding: %v %s", err, out)
	}
	want(admin.run("auth", "can-i", "delete", "widgets.shop.example.com", "--all-namespaces"), "yes")
	want(bob.run("auth", "can-i", "--list", "-n", "tour"), "selfsubjectaccessreviews.authorization.k8s.io", "[/api/*]")
	out, err = bob.exec("create", "-f", "testdata/kubectl/widget.yaml", "-n", "tour")
	if err == nil || !strings.Contains(out, `User "bob" cannot create resource "widgets" in API group "shop.example.com" in the namespace "tour"`) {
		t.Fatalf("forbidden create: %v %s", err, out)
	}

	want(admin.run("create", "rolebinding", "bob-writes", "-n", "tour", "--role=widget-writer", "--user=bob", "--group=team-a"),
		"rolebinding.rbac.authorization.k8s.io/bob-writes created")
	deadline := time.Now().Add(time.Second)
	for {
		out, err = bob.exec("create", "-f", "testdata/kubectl/widget.yaml", "-n", "tour")
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	want(out, "widget.shop.example.com/hello created")
	want(bob.run("auth", "can-i", "create", "widgets.shop.example.com", "-n", "tour"), "yes")
	want(bob.run("auth", "can-i", "--list", "-n", "tour"), "widgets.shop.example.com", "[create get list]")
	want(carol.run("get", "widgets.shop.example.com", "-n", "tour"), "hello")
	out, err = carol.exec("get", "widgets.shop.example.com", "-A")
	if err == nil || !strings.Contains(out, "at the cluster scope") {
		t.Fatalf("carol lists across namespaces: %v %s", err, out)
	}
}
