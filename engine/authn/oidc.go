package authn

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/dynapi/dynapi/engine"
)

// OIDCOptions are kube-apiserver's --oidc-* flags.
type OIDCOptions struct {
	IssuerURL     string
	ClientID      string
	UsernameClaim string
	// UsernamePrefix is put before every user name; empty means the
	// issuer URL and "#" for a claim other than email, "-" none.
	UsernamePrefix string
	GroupsClaim    string
	GroupsPrefix   string
	// CAFile is the CA of the issuer's certificate; empty: the system's.
	CAFile string
}

// OIDC authenticates JWT bearer tokens signed by an OpenID Connect
// issuer with a key of its JWKS, which it fetches from the issuer's
// discovery document when it first needs it, and again (at most every
// 10 s) when a token names a key it does not hold.
type OIDC struct {
	// Now is the clock tokens are checked against.
	Now    func() time.Time
	opts   OIDCOptions
	client *http.Client

	mu      sync.Mutex
	keys    map[string]any // by kid: *rsa.PublicKey or *ecdsa.PublicKey
	fetched time.Time
}

var _ Authenticator = (*OIDC)(nil)

// keyRefetch bounds how often the JWKS is fetched for an unknown key.
const keyRefetch = 10 * time.Second

// NewOIDC returns an OIDC authenticator; it reaches the issuer only when a
// token arrives, so that the issuer may start after the server.
func NewOIDC(opts OIDCOptions) (*OIDC, error) {
	if !strings.HasPrefix(opts.IssuerURL, "https://") {
		return nil, fmt.Errorf("--oidc-issuer-url must be an https URL: %q", opts.IssuerURL)
	}
	if opts.UsernameClaim == "" {
		opts.UsernameClaim = "sub"
	}
	switch {
	case opts.UsernamePrefix == "-":
		opts.UsernamePrefix = ""
	case opts.UsernamePrefix == "" && opts.UsernameClaim != "email":
		opts.UsernamePrefix = opts.IssuerURL + "#"
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if opts.CAFile != "" {
		pem, err := os.ReadFile(opts.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read --oidc-ca-file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate", opts.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	return &OIDC{opts: opts, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}, Now: time.Now}, nil
}

// Authenticate verifies a bearer JWT from the issuer. A bearer token that
// is not a JWT of this issuer is not its business (ok false, no error), so
// that the token file may know it.
func (o *OIDC) Authenticate(r *http.Request) (*engine.User, bool, error) {
	token, ok := Bearer(r)
	if !ok || strings.Count(token, ".") != 2 {
		return nil, false, nil
	}
	jwt, err := parseJWT(token)
	if err != nil {
		return nil, false, nil
	}
	if iss, _ := jwt.claims["iss"].(string); iss != o.opts.IssuerURL {
		return nil, false, nil
	}
	key, err := o.key(r, jwt.header.Kid)
	if err != nil {
		return nil, false, err
	}
	if err := jwt.verify(key); err != nil {
		return nil, false, err
	}
	if err := o.checkClaims(jwt.claims); err != nil {
		return nil, false, err
	}
	u, err := o.user(jwt.claims)
	return u, err == nil, err
}

// checkClaims checks the audience and the times.
func (o *OIDC) checkClaims(c map[string]any) error {
	if !audienceHas(c["aud"], o.opts.ClientID) {
		return fmt.Errorf("oidc: token not for audience %q", o.opts.ClientID)
	}
	now := float64(o.Now().Unix())
	exp, ok := c["exp"].(float64)
	if !ok || now >= exp {
		return errors.New("oidc: token expired")
	}
	if nbf, ok := c["nbf"].(float64); ok && now < nbf {
		return errors.New("oidc: token not valid yet")
	}
	return nil
}

func audienceHas(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		for _, v := range a {
			if v == want {
				return true
			}
		}
	}
	return false
}

// user reads the user and groups claims.
func (o *OIDC) user(c map[string]any) (*engine.User, error) {
	name, _ := c[o.opts.UsernameClaim].(string)
	if name == "" {
		return nil, fmt.Errorf("oidc: claim %q missing", o.opts.UsernameClaim)
	}
	if o.opts.UsernameClaim == "email" {
		if v, present := c["email_verified"]; present && v != true {
			return nil, errors.New("oidc: email not verified")
		}
	}
	u := &engine.User{Name: o.opts.UsernamePrefix + name}
	if sub, ok := c["sub"].(string); ok {
		u.UID = sub
	}
	if o.opts.GroupsClaim == "" {
		return u, nil
	}
	switch g := c[o.opts.GroupsClaim].(type) {
	case string:
		u.Groups = []string{o.opts.GroupsPrefix + g}
	case []any:
		for _, v := range g {
			if s, ok := v.(string); ok {
				u.Groups = append(u.Groups, o.opts.GroupsPrefix+s)
			}
		}
	}
	return u, nil
}

// key returns the issuer's key kid, fetching the JWKS when it is unknown.
func (o *OIDC) key(r *http.Request, kid string) (any, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if k, ok := o.keys[kid]; ok {
		return k, nil
	}
	if o.keys != nil && o.Now().Sub(o.fetched) < keyRefetch {
		return nil, fmt.Errorf("oidc: unknown key %q", kid)
	}
	keys, err := o.fetchKeys(r)
	o.fetched = o.Now()
	if err != nil {
		return nil, err
	}
	o.keys = keys
	k, ok := keys[kid]
	if !ok {
		return nil, fmt.Errorf("oidc: unknown key %q", kid)
	}
	return k, nil
}

// fetchKeys reads the discovery document, then the JWKS it names.
func (o *OIDC) fetchKeys(r *http.Request) (map[string]any, error) {
	var disc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := o.getJSON(r, strings.TrimSuffix(o.opts.IssuerURL, "/")+"/.well-known/openid-configuration", &disc); err != nil {
		return nil, err
	}
	if disc.Issuer != o.opts.IssuerURL {
		return nil, fmt.Errorf("oidc: discovery names issuer %q, not %q", disc.Issuer, o.opts.IssuerURL)
	}
	var set jwks
	if err := o.getJSON(r, disc.JWKSURI, &set); err != nil {
		return nil, err
	}
	return set.publicKeys(), nil
}

func (o *OIDC) getJSON(r *http.Request, url string, v any) error {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("oidc: %w", err)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return fmt.Errorf("oidc: fetch %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("oidc: fetch %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(v); err != nil {
		return fmt.Errorf("oidc: decode %s: %w", url, err)
	}
	return nil
}
