package authn

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/testkit/oidctest"
)

func bearerRequest(token string) *http.Request {
	r := httptest.NewRequest("GET", "/api", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

func TestOIDC(t *testing.T) {
	iss := oidctest.New(t)
	o, err := NewOIDC(OIDCOptions{IssuerURL: iss.URL(), ClientID: "dynapi", UsernameClaim: "email", GroupsClaim: "groups",
		GroupsPrefix: "oidc:", CAFile: iss.CAFile(t)})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	good := map[string]any{"iss": iss.URL(), "aud": "dynapi", "sub": "u-1", "email": "dora@example.com",
		"email_verified": true, "groups": []string{"devs"}, "exp": now + 60}
	u, ok, err := o.Authenticate(bearerRequest(iss.Sign(t, "k1", good)))
	if err != nil || !ok || u.Name != "dora@example.com" || u.UID != "" || !slices.Equal(u.Groups, []string{"oidc:devs"}) {
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
		"expired":        iss.Sign(t, "k1", with("exp", now-1)),
		"other audience": iss.Sign(t, "k1", with("aud", "other")),
		"unverified":     iss.Sign(t, "k1", with("email_verified", false)),
		"unknown key":    iss.Sign(t, "k2", good),
		"bad signature":  iss.Sign(t, "k1", good)[:len(iss.Sign(t, "k1", good))-8] + "AAAAAAAA",
	}
	for name, token := range bad {
		if u, ok, err := o.Authenticate(bearerRequest(token)); ok || err == nil {
			t.Errorf("%s: %+v %v %v", name, u, ok, err)
		}
	}
	// Another issuer's token is not this authenticator's business.
	if _, ok, err := o.Authenticate(bearerRequest(iss.Sign(t, "k1", with("iss", "https://elsewhere")))); ok || err != nil {
		t.Errorf("foreign issuer: %v %v", ok, err)
	}
	if iss.Fetches() > 2 {
		t.Errorf("JWKS fetched %d times: not cached", iss.Fetches())
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
