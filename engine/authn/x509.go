package authn

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/dynapi/dynapi/engine"
)

// ClientCert authenticates TLS client certificates signed by a client CA,
// kube-apiserver's --client-ca-file: the subject's common name is the
// user, its organizations the groups.
type ClientCert struct {
	roots *x509.CertPool
}

var _ Authenticator = (*ClientCert)(nil)

// LoadClientCA reads a PEM bundle of CA certificates.
func LoadClientCA(path string) (*ClientCert, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read client CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no PEM certificate", path)
	}
	return &ClientCert{roots: pool}, nil
}

// Pool is the CA pool, for the TLS server to ask clients for certificates
// it names.
func (c *ClientCert) Pool() *x509.CertPool { return c.roots }

// Authenticate verifies the connection's client certificate chain for
// client authentication.
func (c *ClientCert) Authenticate(r *http.Request) (*engine.User, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	certs := r.TLS.PeerCertificates
	opts := x509.VerifyOptions{Roots: c.roots, Intermediates: x509.NewCertPool(),
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	for _, ic := range certs[1:] {
		opts.Intermediates.AddCert(ic)
	}
	if _, err := certs[0].Verify(opts); err != nil {
		return nil, false, fmt.Errorf("verify client certificate: %w", err)
	}
	subject := certs[0].Subject
	if subject.CommonName == "" {
		return nil, false, errors.New("client certificate has no common name")
	}
	groups := append([]string(nil), subject.Organization...)
	return &engine.User{Name: subject.CommonName, Groups: groups}, true, nil
}
