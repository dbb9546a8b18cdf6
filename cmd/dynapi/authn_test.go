package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// call sends one request with client and returns the code and body.
func call(t *testing.T, client *http.Client, method, url, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

const whoami = `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`

// wantWho checks a SelfSubjectReview answer.
func wantWho(t *testing.T, code int, body, user string, groups ...string) {
	t.Helper()
	if code != http.StatusCreated {
		t.Fatalf("SelfSubjectReview: %d %s", code, body)
	}
	if got := gjson.Get(body, "status.userInfo.username").String(); got != user {
		t.Fatalf("username = %q, want %q: %s", got, user, body)
	}
	for _, g := range groups {
		if !strings.Contains(gjson.Get(body, "status.userInfo.groups").Raw, `"`+g+`"`) {
			t.Fatalf("groups lack %q: %s", g, body)
		}
	}
}

// wantUnauthorized checks kube-apiserver's 401 Status.
func wantUnauthorized(t *testing.T, code int, body string) {
	t.Helper()
	if code != http.StatusUnauthorized || gjson.Get(body, "kind").String() != "Status" ||
		gjson.Get(body, "reason").String() != "Unauthorized" || gjson.Get(body, "message").String() != "Unauthorized" ||
		gjson.Get(body, "code").Int() != 401 {
		t.Fatalf("want 401 Unauthorized Status, got %d %s", code, body)
	}
}

func TestTokenAuthentication(t *testing.T) {
	dir := t.TempDir()
	tokens := secretFile(t, dir, "tokens.csv", []byte("# token,user,uid,groups\nsecret-alice,alice,1001,\"devs,ops\"\nsecret-bob,bob,1002\n"))
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, Security: SecurityConfig{TokenAuthFile: tokens, AuthorizationMode: modeAlwaysAllow}})
	base, c := "http://"+m.Addr(), http.DefaultClient

	code, body := call(t, c, "GET", base+"/api/v1/namespaces", "")
	wantUnauthorized(t, code, body)
	code, body = call(t, c, "GET", base+"/api/v1/namespaces", "", "Authorization", "Bearer wrong")
	wantUnauthorized(t, code, body)
	for _, p := range []string{"/healthz", "/livez", "/readyz", "/readyz?verbose"} {
		if code, body := call(t, c, "GET", base+p, ""); code != http.StatusOK {
			t.Errorf("%s without credentials: %d %s", p, code, body)
		}
	}
	if code, body := call(t, c, "GET", base+"/api/v1/namespaces", "", "Authorization", "Bearer secret-bob"); code != http.StatusOK {
		t.Fatalf("list with a token: %d %s", code, body)
	}
	code, body = call(t, c, "POST", base+"/apis/authentication.k8s.io/v1/selfsubjectreviews", whoami, "Authorization", "Bearer secret-alice")
	wantWho(t, code, body, "alice", "devs", "ops", "system:authenticated")
	if uid := gjson.Get(body, "status.userInfo.uid").String(); uid != "1001" {
		t.Errorf("uid = %q", uid)
	}
}

func TestAnonymousAuth(t *testing.T) {
	tokens := secretFile(t, t.TempDir(), "tokens.csv", []byte("t1,alice,1\n"))
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, Security: SecurityConfig{TokenAuthFile: tokens, AnonymousAuth: true, AuthorizationMode: modeAlwaysAllow}})
	code, body := call(t, http.DefaultClient, "POST", "http://"+m.Addr()+"/apis/authentication.k8s.io/v1/selfsubjectreviews", whoami)
	wantWho(t, code, body, "system:anonymous", "system:unauthenticated")
	// Wrong credentials are refused even so.
	code, body = call(t, http.DefaultClient, "GET", "http://"+m.Addr()+"/api", "", "Authorization", "Bearer nope")
	wantUnauthorized(t, code, body)
}

func TestClientCertificateAuthentication(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	serverCert, serverKey := ca.issue(t, "dynapi", nil, net.ParseIP("127.0.0.1"))
	clientCert, clientKey := ca.issue(t, "carol", []string{"admins", "devs"})
	other := newTestCA(t)
	strangerCert, strangerKey := other.issue(t, "mallory", []string{"system:masters"})
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url,
		TLSCertFile: secretFile(t, dir, "server.crt", serverCert), TLSKeyFile: secretFile(t, dir, "server.key", serverKey),
		Security: SecurityConfig{ClientCAFile: secretFile(t, dir, "ca.crt", ca.pem), AuthorizationMode: modeAlwaysAllow}})
	base := "https://" + m.Addr()
	review := base + "/apis/authentication.k8s.io/v1/selfsubjectreviews"

	code, body := call(t, tlsClient(t, ca, clientCert, clientKey), "POST", review, whoami)
	wantWho(t, code, body, "carol", "admins", "devs", "system:authenticated")
	code, body = call(t, tlsClient(t, ca, nil, nil), "POST", review, whoami)
	wantUnauthorized(t, code, body)
	code, body = call(t, tlsClient(t, ca, strangerCert, strangerKey), "POST", review, whoami)
	wantUnauthorized(t, code, body)
}

func TestRefuseOpenServerOnAnyAddress(t *testing.T) {
	m := &Main{Config: Config{Listen: "0.0.0.0:0", DatabaseURL: "postgres://unused"}, Logger: discardLogger()}
	err := m.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "--insecure-allow-any-address") {
		t.Fatalf("Run on 0.0.0.0 with no authentication: %v", err)
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:8080", "[::1]:0"} {
		if err := (SecurityConfig{}).checkListen(addr); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
	for _, sec := range []SecurityConfig{{InsecureAllowAnyAddress: true}, {TokenAuthFile: "x"}} {
		if err := sec.checkListen(":8080"); err != nil {
			t.Errorf("%+v: %v", sec, err)
		}
	}
}
