// Package webhooktest gives tests what a webhook program needs: a
// certificate authority of their own (its PEM is a caBundle), serving
// certificates it signs, and an HTTPS server started with one.
package webhooktest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// CA is a certificate authority a test makes for itself.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	// PEM is the caBundle that trusts it.
	PEM []byte
}

// NewCA makes a self-signed CA named name.
func NewCA(tb testing.TB, name string) *CA {
	tb.Helper()
	key := NewKey(tb)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return &CA{Cert: cert, Key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// Serving issues a serving certificate for the DNS names and IPs given
// (none: a certificate with only a Common Name, as before SANs).
func (ca *CA) Serving(tb testing.TB, dnsNames []string, ips ...net.IP) tls.Certificate {
	tb.Helper()
	key := NewKey(tb)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "svc-name.ns.svc"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: dnsNames, IPAddresses: ips,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		tb.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// NewKey makes a P-256 key: quick to make, as the tests make many.
func NewKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return key
}

// StartTLS starts a webhook server that serves cert, HTTP/2 too when h2,
// until the test ends.
func StartTLS(tb testing.TB, cert tls.Certificate, h2 bool, h http.Handler) *httptest.Server {
	tb.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = h2
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	// The handshakes refused on purpose are not news.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	return srv
}

// Server is a running webhook server.
type Server struct {
	// URL is https://127.0.0.1:port.
	URL string
	// Addr is 127.0.0.1:port, what a service reference resolves to.
	Addr string
	// CABundle is the PEM of the authority that signed the certificate.
	CABundle []byte
}

// Serve serves h over TLS until the test ends, with a certificate for
// 127.0.0.1 and the DNS names given (a service's name.namespace.svc),
// signed by a CA made for it.
func Serve(tb testing.TB, h http.Handler, dnsNames ...string) *Server {
	tb.Helper()
	ca := NewCA(tb, "webhooktest CA")
	srv := StartTLS(tb, ca.Serving(tb, dnsNames, net.IPv4(127, 0, 0, 1)), false, h)
	return &Server{URL: srv.URL, Addr: srv.Listener.Addr().String(), CABundle: ca.PEM}
}
