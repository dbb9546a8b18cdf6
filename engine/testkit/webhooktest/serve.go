package webhooktest

import (
	"net"
	"net/http"
	"testing"
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

// Serve serves h over TLS until the test ends, with a certificate of a
// CA of its own for 127.0.0.1 and the DNS names given (a service's
// name.namespace.svc).
func Serve(tb testing.TB, h http.Handler, dnsNames ...string) *Server {
	tb.Helper()
	ca := NewCA(tb, "webhooktest CA")
	srv := StartTLS(tb, ca.Serving(tb, dnsNames, net.IPv4(127, 0, 0, 1)), false, h)
	return &Server{URL: srv.URL, Addr: srv.Listener.Addr().String(), CABundle: ca.PEM}
}
