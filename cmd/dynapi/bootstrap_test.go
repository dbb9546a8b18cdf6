package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// TestBootstrap: told to listen beyond loopback with no authentication,
// dynapi makes its CA and certificates and writes an admin kubeconfig
// (0600) that the real kubectl uses over TLS as system:masters; a client
// without the admin's certificate is refused; a restart keeps the CA, so
// the kubeconfig written before still works.
func TestBootstrap(t *testing.T) {
	needKubectl(t)
	url, _ := startPostgres(t)
	dataDir := t.TempDir()
	cfg := Config{DatabaseURL: url, DataDir: dataDir, Listen: "0.0.0.0:0", Bootstrap: true,
		Schemas: "../../schemas", Conversions: "../../conversions", Security: SecurityConfig{AuthorizationMode: modeAlwaysAllow}}
	written := filepath.Join(dataDir, "kubeconfig")
	m := runBootstrapped(t, cfg)
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = m.Close()
		}
	})
	if st, err := os.Stat(written); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig: %v %v", st, err)
	}
	adminWhoami(t, written)
	if out := runKubectl(t, written, "get", "namespaces", "-o", "name"); !strings.Contains(out, "namespace/default") {
		t.Errorf("kubectl get namespaces: %s", out)
	}
	caPEM, err := os.ReadFile(filepath.Join(dataDir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	refusedWithoutAdmin(t, m.Addr(), caPEM)
	old, err := os.ReadFile(written)
	if err != nil {
		t.Fatal(err)
	}
	closed = true
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	again := runBootstrapped(t, cfg)
	t.Cleanup(func() { _ = again.Close() })
	if caAgain, _ := os.ReadFile(filepath.Join(dataDir, "pki", "ca.crt")); string(caAgain) != string(caPEM) {
		t.Errorf("the CA changed at restart")
	}
	// The old kubeconfig, pointed at the new port, still authenticates.
	var kc kubeconfig
	if err := yaml.Unmarshal(old, &kc); err != nil {
		t.Fatal(err)
	}
	kc.Clusters[0].Cluster.Server = serverURL(again.Addr(), true)
	oldAtNewPort, err := yaml.Marshal(kc)
	if err != nil {
		t.Fatal(err)
	}
	adminWhoami(t, secretFile(t, t.TempDir(), "old", oldAtNewPort))
}

// runBootstrapped runs cfg as given (runMain listens on loopback).
func runBootstrapped(t *testing.T, cfg Config) *Main {
	t.Helper()
	m := &Main{Config: cfg, Logger: discardLogger()}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return m
}

func adminWhoami(t *testing.T, kubeconfig string) {
	t.Helper()
	out := runKubectl(t, kubeconfig, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}")
	if !strings.HasPrefix(out, "dynapi-admin ") || !strings.Contains(out, "system:masters") {
		t.Errorf("kubectl auth whoami: %s", out)
	}
}

func runKubectl(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command("kubectl", append([]string{"--cache-dir=" + home + "/cache"}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// refusedWithoutAdmin checks that a client without the admin's certificate gets 401
// over TLS, and nothing over plain HTTP.
func refusedWithoutAdmin(t *testing.T, addr string, caPEM []byte) {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	_, port, _ := net.SplitHostPort(addr)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get("https://127.0.0.1:" + port + "/api/v1/namespaces")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no client certificate: %d, want 401", resp.StatusCode)
	}
	if resp, err := http.Get("http://127.0.0.1:" + port + "/api/v1/namespaces"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest { // Go's answer to plain HTTP on a TLS port
			t.Errorf("plain HTTP: %d", resp.StatusCode)
		}
	}
}

// TestLoopbackKubeconfig: on loopback with no authentication, serve
// writes a kubeconfig of the local server into --data-dir, so that
// KUBECONFIG replaces --server; none with another authentication, whose
// credentials dynapi has not.
func TestLoopbackKubeconfig(t *testing.T) {
	url, _ := startPostgres(t)
	dataDir := t.TempDir()
	startMain(t, Config{DatabaseURL: url, DataDir: dataDir})
	written := filepath.Join(dataDir, "kubeconfig")
	if out := runKubectl(t, written, "get", "namespaces", "-o", "name"); !strings.Contains(out, "namespace/default") {
		t.Errorf("kubectl get namespaces: %s", out)
	}
	withTokens := t.TempDir()
	startMain(t, Config{DatabaseURL: url, DataDir: withTokens, Security: SecurityConfig{
		TokenAuthFile: secretFile(t, withTokens, "tokens.csv", []byte(rbacTokens)), AuthorizationMode: modeRBAC}})
	if _, err := os.Stat(filepath.Join(withTokens, "kubeconfig")); err == nil {
		t.Errorf("a kubeconfig without credentials written beside --token-auth-file")
	}
}

// TestBootstrapAtOnce: two processes started together on an empty data
// directory and database agree on one CA and one service-account signing
// key: each serves a certificate of the CA in --data-dir/pki, accepts the
// admin certificate there, and publishes the same keys.
func TestBootstrapAtOnce(t *testing.T) {
	url, _ := startPostgres(t)
	dataDir := t.TempDir()
	cfg := Config{DatabaseURL: url, DataDir: dataDir, Listen: "0.0.0.0:0", Bootstrap: true,
		Schemas: "../../schemas", Conversions: "../../conversions", Security: SecurityConfig{AuthorizationMode: modeAlwaysAllow}}
	mains := []*Main{{Config: cfg, Logger: discardLogger()}, {Config: cfg, Logger: discardLogger()}}
	type run struct {
		m   *Main
		err error
	}
	runs := make(chan run, len(mains))
	for _, m := range mains {
		go func() { runs <- run{m, m.Run(context.Background())} }()
	}
	for range mains {
		r := <-runs
		if r.err != nil {
			t.Errorf("Run: %v", r.err)
			continue
		}
		t.Cleanup(func() { _ = r.m.Close() })
	}
	if t.Failed() {
		t.FailNow()
	}
	pkiDir := filepath.Join(dataDir, "pki")
	caPEM, err := os.ReadFile(filepath.Join(pkiDir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := tls.LoadX509KeyPair(filepath.Join(pkiDir, "admin.crt"), filepath.Join(pkiDir, "admin.key"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{admin}}}}
	var keys []string
	for _, m := range mains {
		_, port, _ := net.SplitHostPort(m.Addr())
		code, jwks := call(t, client, "GET", "https://127.0.0.1:"+port+"/openid/v1/jwks", "")
		if code != http.StatusOK {
			t.Fatalf("server at %s, as the admin: %d %s", port, code, jwks)
		}
		keys = append(keys, jwks)
	}
	if keys[0] != keys[1] {
		t.Errorf("the processes sign service-account tokens with different keys:\n%s\n%s", keys[0], keys[1])
	}
}
