package main

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
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/authn"
)

// An OIDC issuer started by the test: discovery, a JWKS, and RS256 tokens.
func TestOIDCAuthentication(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	var issuer *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": issuer.URL, "jwks_uri": issuer.URL + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		b64 := base64.RawURLEncoding.EncodeToString
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "k1", "alg": "RS256",
			"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	})
	issuer = httptest.NewTLSServer(mux)
	t.Cleanup(issuer.Close)
	sign := func(claims map[string]any) string {
		enc := func(v any) string { b, _ := json.Marshal(v); return base64.RawURLEncoding.EncodeToString(b) }
		signed := enc(map[string]string{"alg": "RS256", "kid": "k1"}) + "." + enc(claims)
		d := sha256.Sum256([]byte(signed))
		sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, d[:])
		if err != nil {
			t.Fatal(err)
		}
		return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
	}
	dir := t.TempDir()
	caFile := secretFile(t, dir, "issuer.crt", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: issuer.Certificate().Raw}))
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, Security: SecurityConfig{AuthorizationMode: modeRBAC, OIDC: authn.OIDCOptions{
		IssuerURL: issuer.URL, ClientID: "dynapi", UsernameClaim: "email", GroupsClaim: "groups", GroupsPrefix: "oidc:", CAFile: caFile}}})
	base := "http://" + m.Addr()
	review := base + "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	claims := map[string]any{"iss": issuer.URL, "aud": "dynapi", "sub": "u-7", "email": "dora@example.com",
		"groups": []string{"devs"}, "exp": time.Now().Add(time.Minute).Unix()}
	code, body := call(t, http.DefaultClient, "POST", review, whoami, "Authorization", "Bearer "+sign(claims))
	wantWho(t, code, body, "dora@example.com", "oidc:devs", "system:authenticated")
	claims["exp"] = time.Now().Add(-time.Minute).Unix()
	code, body = call(t, http.DefaultClient, "POST", review, whoami, "Authorization", "Bearer "+sign(claims))
	wantUnauthorized(t, code, body)
	claims["exp"], claims["aud"] = time.Now().Add(time.Minute).Unix(), "someone-else"
	code, body = call(t, http.DefaultClient, "POST", review, whoami, "Authorization", "Bearer "+sign(claims))
	wantUnauthorized(t, code, body)
}
