package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/testkit/oidctest"
)

// An OIDC issuer started by the test: discovery, a JWKS, and RS256 tokens.
func TestOIDCAuthentication(t *testing.T) {
	issuer := oidctest.New(t)
	sign := func(claims map[string]any) string { return issuer.Sign(t, "k1", claims) }
	caFile := issuer.CAFile(t)
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, Security: SecurityConfig{AuthorizationMode: modeRBAC, OIDC: authn.OIDCOptions{
		IssuerURL: issuer.URL(), ClientID: "dynapi", UsernameClaim: "email", GroupsClaim: "groups", GroupsPrefix: "oidc:", CAFile: caFile}}})
	base := "http://" + m.Addr()
	review := base + "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	claims := map[string]any{"iss": issuer.URL(), "aud": "dynapi", "sub": "u-7", "email": "dora@example.com",
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
