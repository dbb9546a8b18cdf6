package admissionwebhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
	"github.com/dynapi/dynapi/engine/testkit/webhooktest"
	"github.com/dynapi/dynapi/engine/webhook"
	"github.com/dynapi/dynapi/internal/wait"
)

// server is a control plane started for a test, as `dynapi serve` starts
// it, with an audit log at level Metadata.
type server struct {
	base  string
	audit *bytes.Buffer
	mu    *sync.Mutex
}

// lockedBuffer is the audit log's writer.
type lockedBuffer struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (b lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// auditLog is what the audit log holds so far.
func (s *server) auditLog() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.audit.String()
}

// start starts a control plane over kit's database, resolving the
// service references of services (namespace/name: address).
func start(t *testing.T, kit servicetest.Kit, services map[string]string) *server {
	t.Helper()
	return startWith(t, kit, services, nil)
}

// startWith is start with RBAC authorization (nil: every request allowed).
func startWith(t *testing.T, kit servicetest.Kit, services map[string]string, rbac *controlplane.RBAC) *server {
	t.Helper()
	var m strings.Builder
	for svc, addr := range services {
		m.WriteString(svc + ": " + addr + "\n")
	}
	resolver, err := webhook.NewServiceResolver("", []byte(m.String()))
	if err != nil {
		t.Fatal(err)
	}
	policy, err := audit.ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &server{audit: &bytes.Buffer{}, mu: &sync.Mutex{}}
	cp, err := controlplane.Start(context.Background(), controlplane.Config{
		Service: resource.New(kit.Store), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Files:    &controlplane.Files{Schemas: "../../schemas", Conversions: "../../conversions"},
		HTTP:     httpapi.Options{Auditor: audit.NewLog(policy, lockedBuffer{s.mu, s.audit})},
		Webhooks: webhook.New(webhook.Options{Resolver: resolver}),
		Serving:  &controlplane.Serving{Listen: "127.0.0.1:0"},
		RBAC:     rbac,
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := cp.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	s.base = "http://" + cp.Addr()
	return s
}

// answer is what a test webhook answers one request.
type answer func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse

// hook is a webhook program a test runs: it answers AdmissionReviews over
// TLS, records each request, and may wait before it answers.
type hook struct {
	*webhooktest.Server
	mu       sync.Mutex
	got      []*admissionv1.AdmissionRequest
	versions []string // the apiVersion of each review
	delay    time.Duration
}

// serveHook starts a webhook program answering with answer.
func serveHook(t testing.TB, answer answer, dnsNames ...string) *hook {
	h := &hook{}
	h.Server = webhooktest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.got, h.versions = append(h.got, review.Request), append(h.versions, review.APIVersion)
		delay := h.delay
		h.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		resp := answer(review.Request)
		resp.UID = review.Request.UID
		review.Request, review.Response = nil, resp
		_ = json.NewEncoder(w).Encode(review)
	}), dnsNames...)
	return h
}

// requests are the requests the webhook received so far.
func (h *hook) requests() []*admissionv1.AdmissionRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*admissionv1.AdmissionRequest(nil), h.got...)
}

// reviewVersions are the apiVersions of the reviews received so far.
func (h *hook) reviewVersions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.versions...)
}

func (h *hook) setDelay(d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.delay = d
}

// allow allows every request.
func allow(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true}
}

// call sends a request to s with a JSON body unless body is "" (a patch's
// content type when given) and returns the status code, the body and the
// response's warnings.
func (s *server) call(t *testing.T, method, path, body string, contentType ...string) (int, string, []string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if len(contentType) > 0 {
		req.Header.Set("Content-Type", contentType[0])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out), resp.Header.Values("Warning")
}

// must sends a request and fails the test unless it answers want.
func (s *server) must(t *testing.T, want int, method, path, body string, contentType ...string) string {
	t.Helper()
	code, out, _ := s.call(t, method, path, body, contentType...)
	if code != want {
		t.Fatalf("%s %s = %d %s, want %d", method, path, code, out, want)
	}
	return out
}

// configure creates a webhook configuration and waits until it is in
// force: until probe answers as it should.
func (s *server) configure(t *testing.T, config string, probe func() bool) {
	t.Helper()
	kind := "validatingwebhookconfigurations"
	if strings.Contains(config, "MutatingWebhookConfiguration") {
		kind = "mutatingwebhookconfigurations"
	}
	s.must(t, http.StatusCreated, "POST", "/apis/admissionregistration.k8s.io/v1/"+kind, config)
	wait.Eventually(t, 30*time.Second, func() (bool, string) { return probe(), "the webhook configuration in force" })
}
