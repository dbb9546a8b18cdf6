package httpapi_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/internal/wait"
)

// syncBuffer is a bytes.Buffer the server writes and the test reads at
// once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// refusalPolicy records everything at Metadata; its first rule names a
// user, which a refused login (no user) must pass by, as in kube.
const refusalPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  users: ["system:kube-proxy"]
- level: Metadata
`

// securedServer is a test server with a token file (admin, in
// system:masters), the audit log of refusalPolicy in events, and its
// server log in logs.
func securedServer(t *testing.T) (s *testServer, events, logs *syncBuffer) {
	t.Helper()
	tokens, err := authn.ParseTokens(strings.NewReader("admin-token,admin,1,system:masters\n"))
	if err != nil {
		t.Fatal(err)
	}
	policy, err := audit.ParsePolicy([]byte(refusalPolicy))
	if err != nil {
		t.Fatal(err)
	}
	events, logs = &syncBuffer{}, &syncBuffer{}
	s = newTestServerOptions(t, httpapi.Options{Authenticator: authn.Union{tokens}, Auditor: audit.NewLog(policy, events),
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	return s, events, logs
}

// auditEvent waits for the event of the request answered with id (its
// Audit-Id) at stage, and returns it.
func auditEvent(t *testing.T, events *syncBuffer, id, stage string) gjson.Result {
	t.Helper()
	var found gjson.Result
	wait.Eventually(t, 10*time.Second, func() (bool, string) {
		for line := range strings.Lines(events.String()) {
			if ev := gjson.Parse(line); ev.Get("auditID").String() == id && ev.Get("stage").String() == stage {
				found = ev
				return true, ""
			}
		}
		return false, "no " + stage + " event " + id + " in:\n" + events.String()
	})
	return found
}

func TestRefusalsAreAudited(t *testing.T) {
	s, events, logs := securedServer(t)
	tests := []struct {
		name, path  string
		header      []string
		code        int
		stage, user string
		message     string // of the event's responseStatus
	}{
		{"wrong token", "/api/v1/namespaces", []string{"Authorization", "Bearer wrong"}, 401, "ResponseStarted", "",
			"Authentication failed, attempted: bearer"},
		{"no credentials", "/apis", nil, 401, "ResponseStarted", "", "Authentication failed, no credentials provided"},
		{"bad query", "/api/v1/namespaces?labelSelector=a%zz", []string{"Authorization", "Bearer admin-token"}, 400,
			"ResponseComplete", "admin", "the query string could not be parsed: invalid URL escape \"%zz\""},
		{"impersonation", "/api/v1/secrets", []string{"Authorization", "Bearer admin-token", "Impersonate-Group", "devs"}, 400,
			"ResponseComplete", "admin", "requested [{Group  devs    }] without impersonating a user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(http.MethodGet, tt.path, "", "", tt.header...)
			if r.code != tt.code {
				t.Fatalf("code %d, want %d: %s", r.code, tt.code, r.body)
			}
			id := r.header.Get("Audit-Id")
			if id == "" {
				t.Fatalf("no Audit-Id header: the refusal was not audited")
			}
			ev := auditEvent(t, events, id, tt.stage)
			if ev.Get("responseStatus.code").Int() != int64(tt.code) || ev.Get("responseStatus.message").String() != tt.message ||
				ev.Get("user.username").String() != tt.user || ev.Get("sourceIPs.0").String() != "127.0.0.1" {
				t.Errorf("event: %s", ev.Raw)
			}
		})
	}
	// The failed logins are in the server's log at Info, without the token.
	log := logs.String()
	if !strings.Contains(log, `"level":"INFO","msg":"authentication failed","client":"127.0.0.1","attempted":"bearer"`) ||
		!strings.Contains(log, `"attempted":"","reason":"no credentials"`) || strings.Contains(log, "Bearer wrong") {
		t.Errorf("server log:\n%s", log)
	}
}

// hostDo sends a request with the given Host header.
func (s *testServer) hostDo(host, method, path, contentType, body string) response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Host = host
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return response{code: resp.StatusCode, header: resp.Header, body: out}
}

// A server without authentication serves loopback host names only, and
// refuses a write without a Content-Type (which a web page can send with
// no CORS preflight); one with authentication does neither.
func TestOpenServerRefusesWhatAPageCanSend(t *testing.T) {
	open := newTestServer(t)
	secured, _, _ := securedServer(t)
	ns := func(name string) string {
		return `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + name + `"}}`
	}
	for _, host := range []string{"localhost", "localhost:8080", "LOCALHOST:1", "127.0.0.1", "127.0.0.1:9", "127.9.8.7:80", "[::1]", "[::1]:8080", "::1"} {
		if r := open.hostDo(host, http.MethodGet, "/version", "", ""); r.code != http.StatusOK {
			t.Errorf("Host %s: %d %s", host, r.code, r.body)
		}
	}
	for _, host := range []string{"evil.example", "evil.example:8080", "localhost.evil.example", "10.0.0.1:8080", "[::2]:80", "0.0.0.0"} {
		r := open.hostDo(host, http.MethodGet, "/version", "", "")
		wantStatus(t, r, http.StatusForbidden, "Forbidden")
		if !strings.Contains(r.get("message").String(), "serves only loopback host names") {
			t.Errorf("Host %s: %s", host, r.body)
		}
	}
	r := open.do(http.MethodPost, "/api/v1/namespaces", "", ns("page"))
	wantStatus(t, r, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
	if !strings.Contains(r.get("message").String(), "no Content-Type") {
		t.Errorf("message: %s", r.body)
	}
	open.mustDo(http.StatusCreated, http.MethodPost, "/api/v1/namespaces", "application/json", ns("typed"))
	// Other methods need a CORS preflight, which is never granted: a
	// missing Content-Type is JSON there, as client-go's scale client needs.
	open.mustDo(http.StatusOK, http.MethodDelete, "/api/v1/namespaces/typed", "", `{"kind":"DeleteOptions","apiVersion":"v1"}`)
	// With authentication, a missing Content-Type is JSON, as in kube,
	// and any Host is served.
	secured.mustDo(http.StatusCreated, http.MethodPost, "/api/v1/namespaces", "", ns("untyped"), "Authorization", "Bearer admin-token")
	req, _ := http.NewRequest(http.MethodGet, secured.url+"/version", nil)
	req.Host, req.Header["Authorization"] = "dynapi.example:443", []string{"Bearer admin-token"}
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("secured, foreign Host: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}
