package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/dynapi/dynapi/internal/pki"
)

// bootstraps reports whether serve makes its own certificates and RBAC:
// told to listen beyond loopback with no authentication, no certificate
// and no --insecure-allow-any-address, unless --bootstrap=false.
//
// Why by default: the other way out is a refusal to start, and the
// secure configuration written by hand (tokens, certificates, RBAC) is
// what k3s shows users need not do; what it makes is kept in --data-dir,
// where it can be read, replaced or removed.
func (cfg Config) bootstraps() bool {
	sec := cfg.Security
	if !cfg.Bootstrap || sec.authenticated() || sec.InsecureAllowAnyAddress || cfg.TLSCertFile != "" {
		return false
	}
	local, err := loopback(cfg.Listen)
	return err == nil && !local
}

// bootstrap makes (or reuses) a CA, a serving certificate and an admin
// client certificate in --data-dir/pki, and serves with them: TLS,
// client certificates authenticated, RBAC on. Errors: pki.Ensure's.
func (m *Main) bootstrap() error {
	hosts, err := servingHosts(m.Config.Listen)
	if err != nil {
		return err
	}
	files, err := pki.Ensure(filepath.Join(m.Config.DataDir, "pki"), hosts, time.Now())
	if err != nil {
		return fmt.Errorf("bootstrap certificates: %w", err)
	}
	m.pki = &files
	m.Config.TLSCertFile, m.Config.TLSKeyFile = files.ServingCert, files.ServingKey
	m.Config.Security.ClientCAFile = files.CA
	m.Config.Security.AuthorizationMode = modeRBAC
	m.Logger.Info("bootstrapped: TLS with the certificates of --data-dir/pki, client certificates signed by its CA, RBAC",
		"ca", files.CA, "admin", pki.AdminUser+" ("+pki.AdminGroup+")")
	return nil
}

// servingHosts are the names the serving certificate must be valid for:
// loopback, the machine's name, and the address of listen, or every
// address of the machine when listen names none (0.0.0.0, ::).
func servingHosts(listen string) ([]string, error) {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %w", listen, err)
	}
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	if name, err := os.Hostname(); err == nil {
		hosts = append(hosts, name)
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return append(hosts, host), nil
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return hosts, nil // the names above still serve
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			hosts = append(hosts, n.IP.String())
		}
	}
	return hosts, nil
}
