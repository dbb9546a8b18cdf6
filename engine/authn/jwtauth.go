package authn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apiserver/pkg/apis/apiserver"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/schema/cel"
)

// JWT authenticates bearer JWTs of one issuer, as one jwt entry of kube's
// AuthenticationConfiguration (or the --oidc-* flags) says: tokens signed
// by a key of the issuer's JWKS, which it fetches from the issuer's
// discovery document when it first needs it, and again (at most every
// 10 s) when a token names a key it does not hold; the claims checked and
// mapped to a user by the claim rules and CEL expressions.
type JWT struct {
	// Now is the clock tokens are checked against.
	Now    func() time.Time
	cfg    apiserver.JWTAuthenticator
	rules  *cel.JWT // nil: no CEL expression
	client *http.Client

	mu      sync.Mutex
	keys    map[string]any // by kid: *rsa.PublicKey or *ecdsa.PublicKey
	fetched time.Time
}

var _ Authenticator = (*JWT)(nil)

// keyRefetch bounds how often the JWKS is fetched for an unknown key.
const keyRefetch = 10 * time.Second

// NewJWT returns the authenticator of cfg, an entry that kube's validation
// accepted, with rules its compiled expressions (nil: none). It reaches
// the issuer only when a token arrives, so that the issuer may start after
// the server. Errors: a certificateAuthority without a PEM certificate.
func NewJWT(cfg apiserver.JWTAuthenticator, rules *cel.JWT) (*JWT, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if ca := cfg.Issuer.CertificateAuthority; ca != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(ca)) {
			return nil, fmt.Errorf("issuer %s: certificateAuthority holds no PEM certificate", cfg.Issuer.URL)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	return &JWT{cfg: cfg, rules: rules, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}, Now: time.Now}, nil
}

// Authenticate verifies a bearer JWT from the issuer. A bearer token that
// is not a JWT of this issuer is not its business (ok false, no error), so
// that another issuer or the token file may know it.
func (a *JWT) Authenticate(r *http.Request) (*engine.User, bool, error) {
	token, ok := Bearer(r)
	if !ok || strings.Count(token, ".") != 2 {
		return nil, false, nil
	}
	jwt, err := parseJWT(token)
	if err != nil {
		return nil, false, nil
	}
	if iss, _ := jwt.claims["iss"].(string); iss != a.cfg.Issuer.URL {
		return nil, false, nil
	}
	key, err := a.key(r, jwt.header.Kid)
	if err != nil {
		return nil, false, err
	}
	if err := jwt.verify(key); err != nil {
		return nil, false, err
	}
	if err := a.checkClaims(jwt.claims); err != nil {
		return nil, false, err
	}
	u, err := a.user(r, jwt.claims)
	return u, err == nil, err
}

// checkClaims checks the audience and the times.
func (a *JWT) checkClaims(c map[string]any) error {
	if !audienceHasAny(c["aud"], a.cfg.Issuer.Audiences) {
		return fmt.Errorf("oidc: expected audience in %q got %v", a.cfg.Issuer.Audiences, c["aud"])
	}
	now := float64(a.Now().Unix())
	exp, ok := c["exp"].(float64)
	if !ok || now >= exp {
		return errors.New("oidc: token expired")
	}
	if nbf, ok := c["nbf"].(float64); ok && now < nbf {
		return errors.New("oidc: token not valid yet")
	}
	return nil
}

// audienceHasAny is audienceMatchPolicy MatchAny, the only policy kube
// knows: one of the token's audiences is one of want.
func audienceHasAny(aud any, want []string) bool {
	switch a := aud.(type) {
	case string:
		return slices.Contains(want, a)
	case []any:
		for _, v := range a {
			if s, ok := v.(string); ok && slices.Contains(want, s) {
				return true
			}
		}
	}
	return false
}
