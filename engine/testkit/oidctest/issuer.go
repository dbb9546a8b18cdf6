// Package oidctest is an OpenID Connect issuer for tests: discovery, a
// JWKS with one RSA key ("k1") and RS256 tokens, over TLS. Both the
// authenticator's unit tests and cmd/dynapi's end-to-end test use it.
package oidctest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Issuer is a running test issuer; the test's cleanup stops it.
type Issuer struct {
	srv     *httptest.Server
	key     *rsa.PrivateKey
	fetches atomic.Int32
}

// New starts an Issuer.
func New(t testing.TB) *Issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss := &Issuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": iss.srv.URL, "jwks_uri": iss.srv.URL + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		iss.fetches.Add(1)
		b64 := base64.RawURLEncoding.EncodeToString
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "k1", "use": "sig",
			"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	})
	iss.srv = httptest.NewTLSServer(mux)
	t.Cleanup(iss.srv.Close)
	return iss
}

// URL is the issuer URL, the tokens' iss.
func (iss *Issuer) URL() string { return iss.srv.URL }

// Fetches is how often the JWKS was fetched.
func (iss *Issuer) Fetches() int { return int(iss.fetches.Load()) }

// CA is the issuer's certificate in PEM, for a client to trust.
func (iss *Issuer) CA() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: iss.srv.Certificate().Raw}))
}

// CAFile writes the issuer's certificate to a file, for a client to trust.
func (iss *Issuer) CAFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "issuer.crt")
	if err := os.WriteFile(p, []byte(iss.CA()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Sign returns an RS256 JWT of claims, its header naming key kid ("k1" is
// the issuer's; another kid makes a token no JWKS key verifies).
func (iss *Issuer) Sign(t testing.TB, kid string, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signed := enc(map[string]string{"alg": "RS256", "kid": kid, "typ": "JWT"}) + "." + enc(claims)
	d := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, iss.key, crypto.SHA256, d[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// Fill returns the file at path (an AuthenticationConfiguration, say) with
// ISSUER_1, CA_1, ISSUER_2, CA_2... replaced by the URL and the quoted
// PEM certificate (a JSON string, which YAML reads too) of issuers[0],
// issuers[1]...
func Fill(t testing.TB, path string, issuers ...*Issuer) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for i, iss := range issuers {
		ca, _ := json.Marshal(iss.CA())
		pairs = append(pairs, fmt.Sprintf("ISSUER_%d", i+1), iss.URL(), fmt.Sprintf("CA_%d", i+1), string(ca))
	}
	return []byte(strings.NewReplacer(pairs...).Replace(string(b)))
}
