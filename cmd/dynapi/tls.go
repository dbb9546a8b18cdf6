package main

import (
	"crypto/tls"
	"fmt"
	"os"
	"sync"
	"time"
)

// tlsVersions are the values of --tls-min-version, kube's names.
var tlsVersions = map[string]uint16{
	"VersionTLS12": tls.VersionTLS12,
	"VersionTLS13": tls.VersionTLS13,
}

// certReloader serves the certificate and key of two files and reads
// them again when either changes on disk (checked at most once a second,
// at a handshake), as kube-apiserver's dynamic serving certificate does:
// a renewed certificate is served without a restart. A pair that does not
// load is logged by the caller's handshake error and the previous one kept.
type certReloader struct {
	certFile, keyFile string

	mu      sync.Mutex
	cert    *tls.Certificate
	stamp   string // the files' sizes and modification times
	checked time.Time
}

func newCertReloader(certFile, keyFile string) (*certReloader, error) {
	c := &certReloader{certFile: certFile, keyFile: keyFile}
	if err := c.reloadLocked(); err != nil {
		return nil, err
	}
	return c, nil
}

// GetCertificate is tls.Config.GetCertificate.
func (c *certReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.checked) >= time.Second {
		c.checked = time.Now()
		if c.fileStamp() != c.stamp {
			_ = c.reloadLocked() // a half-written pair: keep serving the old one, try again later
		}
	}
	return c.cert, nil
}

func (c *certReloader) reloadLocked() error {
	stamp := c.fileStamp()
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("load TLS certificate: %w", err)
	}
	c.cert, c.stamp = &cert, stamp
	return nil
}

func (c *certReloader) fileStamp() string {
	var s string
	for _, f := range []string{c.certFile, c.keyFile} {
		if st, err := os.Stat(f); err == nil {
			s += fmt.Sprintf("%d/%d;", st.Size(), st.ModTime().UnixNano())
		}
	}
	return s
}

// serverTLS is the TLS configuration of serve: the reloaded certificate,
// the minimum version, and client certificates asked for when a client CA
// authenticates them.
func (m *Main) serverTLS() (*tls.Config, error) {
	reloader, err := newCertReloader(m.Config.TLSCertFile, m.Config.TLSKeyFile)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{GetCertificate: reloader.GetCertificate, MinVersion: tls.VersionTLS12}
	if v := m.Config.TLSMinVersion; v != "" {
		cfg.MinVersion = tlsVersions[v]
	}
	if m.Config.Security.ClientCAFile != "" {
		// Verified by the authenticator, so that a bad certificate is a 401
		// Status rather than a failed handshake.
		cfg.ClientAuth = tls.RequestClientCert
	}
	return cfg, nil
}
