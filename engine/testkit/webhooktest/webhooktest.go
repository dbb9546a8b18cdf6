// Package webhooktest starts webhook servers for tests: real HTTPS
// servers on loopback, with a serving certificate from a certificate
// authority made for the test, whose PEM is the caBundle a webhook
// configuration names.
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
// 127.0.0.1 and the DNS names given (a service's name.namespace.svc).
func Serve(tb testing.TB, h http.Handler, dnsNames ...string) *Server {
	tb.Helper()
	caKey, serveKey := newKey(tb), newKey(tb)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhooktest CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER := create(tb, ca, ca, &caKey.PublicKey, caKey)
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		tb.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: dnsNames, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER := create(tb, leaf, caCert, &serveKey.PublicKey, caKey)
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: serveKey}}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // a client that hangs up is a test's doing
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	return &Server{URL: srv.URL, Addr: srv.Listener.Addr().String(),
		CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})}
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return key
}

func create(tb testing.TB, tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) []byte {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		tb.Fatal(err)
	}
	return der
}
