package authn

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// testIssuer is an OpenID Connect issuer serving discovery and a JWKS.
type testIssuer struct {
	srv    *httptest.Server
	key    *rsa.PrivateKey
	fetchs int
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss := &testIssuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": iss.srv.URL, "jwks_uri": iss.srv.URL + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		iss.fetchs++
		b64 := base64.RawURLEncoding.EncodeToString
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "k1", "use": "sig",
			"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	})
	iss.srv = httptest.NewTLSServer(mux)
	t.Cleanup(iss.srv.Close)
	return iss
}

// caFile writes the issuer's certificate for OIDCOptions.CAFile.
func (iss *testIssuer) caFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "ca.crt")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: iss.srv.Certificate().Raw})
	if err := os.WriteFile(p, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// sign returns an RS256 JWT of claims.
func (iss *testIssuer) sign(t *testing.T, kid string, claims map[string]any) string {
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

func bearerRequest(token string) *http.Request {
	r := httptest.NewRequest("GET", "/api", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

func TestOIDC(t *testing.T) {
	iss := newTestIssuer(t)
	o, err := NewOIDC(OIDCOptions{IssuerURL: iss.srv.URL, ClientID: "dynapi", UsernameClaim: "email", GroupsClaim: "groups",
		GroupsPrefix: "oidc:", CAFile: iss.caFile(t)})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	good := map[string]any{"iss": iss.srv.URL, "aud": "dynapi", "sub": "u-1", "email": "dora@example.com",
		"email_verified": true, "groups": []string{"devs"}, "exp": now + 60}
	u, ok, err := o.Authenticate(bearerRequest(iss.sign(t, "k1", good)))
	if err != nil || !ok || u.Name != "dora@example.com" || u.UID != "u-1" || !slices.Equal(u.Groups, []string{"oidc:devs"}) {
		t.Fatalf("good token: %+v %v %v", u, ok, err)
	}
	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for k, v := range good {
			c[k] = v
		}
		c[k] = v
		return c
	}
	bad := map[string]string{
		"expired":        iss.sign(t, "k1", with("exp", now-1)),
		"other audience": iss.sign(t, "k1", with("aud", "other")),
		"unverified":     iss.sign(t, "k1", with("email_verified", false)),
		"unknown key":    iss.sign(t, "k2", good),
		"bad signature":  iss.sign(t, "k1", good)[:len(iss.sign(t, "k1", good))-8] + "AAAAAAAA",
	}
	for name, token := range bad {
		if u, ok, err := o.Authenticate(bearerRequest(token)); ok || err == nil {
			t.Errorf("%s: %+v %v %v", name, u, ok, err)
		}
	}
	// Another issuer's token is not this authenticator's business.
	if _, ok, err := o.Authenticate(bearerRequest(iss.sign(t, "k1", with("iss", "https://elsewhere")))); ok || err != nil {
		t.Errorf("foreign issuer: %v %v", ok, err)
	}
	if iss.fetchs > 2 {
		t.Errorf("JWKS fetched %d times: not cached", iss.fetchs)
	}
}

func TestTokenFileAndUnion(t *testing.T) {
	if _, err := ParseTokens(stringsReader("t,u\n")); err == nil {
		t.Error("two columns accepted")
	}
	if _, err := ParseTokens(stringsReader("t,u,1\nt,v,2\n")); err == nil {
		t.Error("duplicate token accepted")
	}
	tf, err := ParseTokens(stringsReader("t,u,1,\"a,b\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	u, ok, err := Union{tf}.Authenticate(bearerRequest("t"))
	if err != nil || !ok || u.Name != "u" || !slices.Equal(u.Groups, []string{"a", "b", "system:authenticated"}) {
		t.Fatalf("%+v %v %v", u, ok, err)
	}
	if _, ok, err := (Union{tf}).Authenticate(httptest.NewRequest("GET", "/", nil)); ok || err != nil {
		t.Fatalf("no credentials: %v %v", ok, err)
	}
	if _, ok, err := (Union{tf}).Authenticate(bearerRequest("x")); ok || err == nil {
		t.Fatalf("wrong token: %v %v", ok, err)
	}
}
