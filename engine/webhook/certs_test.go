package webhook

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/dynapi/dynapi/engine/testkit/webhooktest"
)

// The test CA and server live in webhooktest, which conversion and
// admission tests share; these names keep this package's tests short.

// testCA is a certificate authority a test makes for itself.
type testCA struct {
	*webhooktest.CA
	pem []byte // the caBundle that trusts it
}

// newTestCA makes a self-signed CA named name.
func newTestCA(t *testing.T, name string) *testCA {
	ca := webhooktest.NewCA(t, name)
	return &testCA{CA: ca, pem: ca.PEM}
}

// serving issues a serving certificate for the DNS names and IPs given.
func (ca *testCA) serving(t *testing.T, dnsNames []string, ips ...net.IP) tls.Certificate {
	return ca.Serving(t, dnsNames, ips...)
}

// startTLS starts a webhook server that serves cert, HTTP/2 too when h2.
func startTLS(t *testing.T, cert tls.Certificate, h2 bool, h http.Handler) *httptest.Server {
	return webhooktest.StartTLS(t, cert, h2, h)
}
