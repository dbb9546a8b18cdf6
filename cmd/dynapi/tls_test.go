package main

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// HTTPS serves HTTP/2, holds to --tls-min-version, and serves a renewed
// certificate without a restart.
func TestTLSServing(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	cert1, key1 := ca.issue(t, "first", nil, net.ParseIP("127.0.0.1"))
	certFile, keyFile := secretFile(t, dir, "tls.crt", cert1), secretFile(t, dir, "tls.key", key1)
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, TLSCertFile: certFile, TLSKeyFile: keyFile, TLSMinVersion: "VersionTLS13"})
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	served := func() (*http.Response, error) {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get("https://" + m.Addr() + "/version")
		if err == nil {
			resp.Body.Close()
		}
		return resp, err
	}
	resp, err := served()
	if err != nil || resp.ProtoMajor != 2 || resp.TLS.PeerCertificates[0].Subject.CommonName != "first" {
		t.Fatalf("first request: %v %v", resp, err)
	}
	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS12}}}
	if _, err := old.Get("https://" + m.Addr() + "/version"); err == nil {
		t.Error("TLS 1.2 accepted with --tls-min-version=VersionTLS13")
	}
	cert2, key2 := ca.issue(t, "second", nil, net.ParseIP("127.0.0.1"))
	for _, f := range []struct {
		path string
		data []byte
	}{{keyFile, key2}, {certFile, cert2}} {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	wait.Eventually(t, 10*time.Second, func() (bool, string) {
		resp, err := served()
		if err != nil {
			return false, err.Error()
		}
		cn := resp.TLS.PeerCertificates[0].Subject.CommonName
		return cn == "second", "the renewed certificate served; saw " + cn
	})
}
