package main

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/authn"
)

// TestStartWarnings starts servers as configured and reads their logs:
// bearer tokens over plain HTTP beyond loopback, and AlwaysAllow with
// authenticators, are each warned of at start, and safe configurations
// are not.
func TestStartWarnings(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	cert, key := ca.issue(t, "dynapi", nil, net.ParseIP("127.0.0.1"))
	certFile, keyFile := secretFile(t, dir, "tls.crt", cert), secretFile(t, dir, "tls.key", key)
	tokens := secretFile(t, dir, "tokens.csv", []byte("t1,alice,1\n"))
	oidc := authn.OIDCOptions{IssuerURL: "https://issuer.invalid", ClientID: "dynapi", UsernameClaim: "sub"}
	url, _ := startPostgres(t)
	tests := []struct {
		name   string
		listen string
		tls    bool
		sec    SecurityConfig
		want   []string
	}{
		{"token file over HTTP on any address, AlwaysAllow", "0.0.0.0:0", false,
			SecurityConfig{TokenAuthFile: tokens, AuthorizationMode: modeAlwaysAllow}, []string{warnClearTokens, warnAlwaysAllow}},
		{"OIDC over HTTP on any address, RBAC", "0.0.0.0:0", false,
			SecurityConfig{OIDC: oidc, AuthorizationMode: modeRBAC}, []string{warnClearTokens}},
		{"client certificates, AlwaysAllow", "0.0.0.0:0", true,
			SecurityConfig{ClientCAFile: secretFile(t, dir, "ca.crt", ca.pem), AuthorizationMode: modeAlwaysAllow}, []string{warnAlwaysAllow}},
		{"safe: token file over TLS, RBAC", "0.0.0.0:0", true,
			SecurityConfig{TokenAuthFile: tokens, AuthorizationMode: modeRBAC}, nil},
		{"safe: token file over HTTP on loopback, RBAC", "127.0.0.1:0", false,
			SecurityConfig{TokenAuthFile: tokens, AuthorizationMode: modeRBAC}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{DatabaseURL: url, Listen: tt.listen, Schemas: "../../schemas", Conversions: "../../conversions", Security: tt.sec}
			if tt.tls {
				cfg.TLSCertFile, cfg.TLSKeyFile = certFile, keyFile
			}
			log := startLogged(t, cfg)
			for _, w := range []string{warnClearTokens, warnAlwaysAllow} {
				want := slices.Contains(tt.want, w)
				if got := strings.Contains(log, "level=WARN msg="+quoted(w)); got != want {
					t.Errorf("warned %q: %v, want %v; log:\n%s", w, got, want, log)
				}
			}
		})
	}
}

// startLogged runs dynapi as configured until the test ends, and returns
// what it logged while starting.
func startLogged(t *testing.T, cfg Config) string {
	t.Helper()
	var log syncBuffer
	m := &Main{Config: cfg, Logger: slog.New(slog.NewTextHandler(&log, nil))}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return log.String()
}

// quoted is how slog's text handler writes a message with spaces.
func quoted(msg string) string { return `"` + strings.ReplaceAll(msg, `"`, `\"`) + `"` }
