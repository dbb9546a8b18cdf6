package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/dynapi/dynapi/engine"
)

// seen is what a test webhook saw of a call.
type seen struct {
	method, path, query, host, contentType, accept, proto, body string
}

// echo is a webhook that answers its request's body and records the call.
func echo(got *seen) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		*got = seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Host, r.Header.Get("Content-Type"),
			r.Header.Get("Accept"), r.Proto, string(body)}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}

// TestCallURL: the url form, over TLS with the caBundle, POSTing JSON, with
// client-go's ?timeout= and HTTP/2 to a loopback address as kube allows it.
func TestCallURL(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "webhook test CA")
	var got seen
	srv := startTLS(t, ca.serving(t, nil, net.ParseIP("127.0.0.1")), true, echo(&got))
	c := New(Options{})
	body, err := c.Call(context.Background(), Request{Name: "w", Type: "validating", Body: []byte(`{"kind":"AdmissionReview"}`),
		Config: ClientConfig{URL: ptr(srv.URL + "/validate"), CABundle: ca.pem}})
	if err != nil {
		t.Fatal(err)
	}
	want := seen{"POST", "/validate", "timeout=10s", strings.TrimPrefix(srv.URL, "https://"),
		"application/json", "application/json, */*", "HTTP/2.0", `{"kind":"AdmissionReview"}`}
	if got != want || string(body) != want.body {
		t.Errorf("the webhook saw %+v\nwant %+v\nCall returned %s", got, want, body)
	}
}

// TestCallService: the service form, dialed at the address the resolver
// gives, while the certificate (issued for svc-name.ns.svc only) is
// verified for the service's name; HTTP/1.1, as kube speaks to services.
func TestCallService(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "webhook test CA")
	var got seen
	srv := startTLS(t, ca.serving(t, []string{"svc-name.ns.svc"}), true, echo(&got))
	c := New(Options{Resolver: resolverTo(t, srv)})
	_, err := c.Call(context.Background(), Request{Name: "w", Body: []byte(`{}`), Timeout: 5 * time.Second,
		Config: ClientConfig{Service: &ServiceReference{Namespace: "ns", Name: "svc-name", Path: ptr("/convert")}, CABundle: ca.pem}})
	if err != nil {
		t.Fatal(err)
	}
	want := seen{"POST", "/convert", "timeout=5s", "svc-name.ns.svc:443", "application/json", "application/json, */*", "HTTP/1.1", `{}`}
	if got != want {
		t.Errorf("the webhook saw %+v\nwant %+v", got, want)
	}
}

// resolverTo resolves every service to srv's address.
func resolverTo(t *testing.T, srv *httptest.Server) *ServiceResolver {
	t.Helper()
	r, err := NewServiceResolver(strings.TrimPrefix(srv.URL, "https://"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCallReusesTransport: a second call to the same webhook opens no new
// connection (and builds no new transport).
func TestCallReusesTransport(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "webhook test CA")
	var got seen
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(echo(&got))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.serving(t, []string{"svc-name.ns.svc"})}}
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := New(Options{Resolver: resolverTo(t, srv)})
	cfg := ClientConfig{Service: &ServiceReference{Namespace: "ns", Name: "svc-name"}, CABundle: ca.pem}
	for i := range 3 {
		if _, err := c.Call(context.Background(), Request{Name: fmt.Sprint("w", i), Body: []byte(`{}`), Config: cfg}); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("3 calls opened %d connections, want 1", n)
	}
	if n := c.transports.order.Len(); n != 1 {
		t.Errorf("3 calls built %d transports, want 1", n)
	}
}

// TestCallFailures: each failure in kube's words, with the Status kube
// answers and the metrics' reason.
func TestCallFailures(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "webhook test CA")
	ipCert := ca.serving(t, nil, net.ParseIP("127.0.0.1"))
	refused := closedAddress(t)
	slow := make(chan struct{})
	t.Cleanup(func() { close(slow) })
	tests := []struct {
		name    string
		handler http.HandlerFunc
		cert    *tls.Certificate
		cfg     func(url string) ClientConfig
		opts    Options
		timeout time.Duration
		want    string // the error's text; %s is the server's URL
		status  *engine.Error
		reason  string
	}{
		{name: "connection refused",
			cfg: func(string) ClientConfig {
				return ClientConfig{URL: ptr("https://" + refused + "/validate"), CABundle: ca.pem}
			},
			want:   `failed calling webhook "w": failed to call webhook: Post "https://` + refused + `/validate?timeout=10s": dial tcp ` + refused + `: connect: connection refused`,
			status: engine.Errorf(engine.CodeUnavailable, "error calling webhook"), reason: FailConnection},
		{name: "unknown authority", cfg: func(u string) ClientConfig {
			return ClientConfig{URL: ptr(u), CABundle: newTestCA(t, "another CA").pem}
		},
			want:   `failed calling webhook "w": failed to call webhook: Post "%s?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
			status: engine.Errorf(engine.CodeUnavailable, "error calling webhook"), reason: FailTLS},
		{name: "certificate for another service", cert: ptr(ca.serving(t, []string{"other.ns.svc"})),
			cfg: func(string) ClientConfig {
				return ClientConfig{Service: &ServiceReference{Namespace: "ns", Name: "svc-name"}, CABundle: ca.pem}
			},
			want:   `failed calling webhook "w": failed to call webhook: Post "https://svc-name.ns.svc:443/?timeout=10s": tls: failed to verify certificate: x509: certificate is valid for other.ns.svc, not svc-name.ns.svc`,
			status: engine.Errorf(engine.CodeUnavailable, "error calling webhook"), reason: FailTLS},
		{name: "timeout", timeout: 20 * time.Millisecond,
			handler: func(w http.ResponseWriter, r *http.Request) {
				// Read first: the server sees the client go only once
				// the body is read.
				_, _ = io.ReadAll(r.Body)
				// Not r.Context(): whatever ends it early, the answer must
				// come after the client's deadline (20 ms).
				select {
				case <-time.After(2 * time.Second):
				case <-slow:
				}
			},
			want:   `failed calling webhook "w": failed to call webhook: Post "%s?timeout=1s": context deadline exceeded`,
			status: engine.Errorf(engine.CodeUnavailable, "error calling webhook"), reason: FailTimeout},
		{name: "response too large", opts: Options{MaxResponseBytes: 1024},
			handler: func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(make([]byte, 1025)) },
			want:    `failed calling webhook "w": failed to call webhook: Post "%s?timeout=10s": response body larger than the limit of 1024 bytes`,
			status:  engine.Errorf(engine.CodeUnavailable, "error calling webhook"), reason: FailTooLarge},
		{name: "a Status of the webhook's own",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no, you may not","reason":"Forbidden","code":403}`)
			},
			want:   `failed calling webhook "w": failed to call webhook: no, you may not`,
			status: engine.Errorf(engine.CodeForbidden, "no, you may not"), reason: FailStatus},
		{name: "a 500 in text",
			handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) },
			want:    `failed calling webhook "w": failed to call webhook: an error on the server ("boom") has prevented the request from succeeding`,
			status:  engine.Errorf(engine.CodeInternal, `an error on the server ("boom") has prevented the request from succeeding`), reason: FailStatus},
		{name: "a redirect is not followed",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://example.com/", http.StatusTemporaryRedirect)
			},
			want:   `failed calling webhook "w": failed to call webhook: the server responded with the status code 307 but did not return more information`,
			status: engine.Errorf(engine.CodeInternal, "the server responded with the status code 307 but did not return more information"), reason: FailStatus},
		{name: "an empty 200",
			handler: func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Content-Type", "application/json") },
			want:    `failed calling webhook "w": failed to call webhook: 0-length response with status code: 200 and content type: application/json`,
			status:  engine.Errorf(engine.CodeUnavailable, "error calling webhook"), reason: FailEmpty},
		{name: "neither url nor service", cfg: func(string) ClientConfig { return ClientConfig{} },
			want:   `failed calling webhook "w": webhook configuration must have either service or URL`,
			status: engine.Errorf(engine.CodeInternal, "Internal error occurred: webhook configuration must have either service or URL"), reason: FailConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cert := ipCert
			if tt.cert != nil {
				cert = *tt.cert
			}
			var h http.Handler = tt.handler
			if tt.handler == nil {
				h = echo(new(seen))
			}
			srv := startTLS(t, cert, false, h)
			reg := prometheus.NewPedanticRegistry()
			tt.opts.Registerer, tt.opts.Resolver = reg, resolverTo(t, srv)
			cfg := ClientConfig{URL: ptr(srv.URL), CABundle: ca.pem}
			if tt.cfg != nil {
				cfg = tt.cfg(srv.URL)
			}
			c := New(tt.opts)
			_, err := c.Call(context.Background(), Request{Name: "w", Type: "validating", Body: []byte(`{}`), Config: cfg, Timeout: tt.timeout})
			var callErr *ErrCallingWebhook
			if !errors.As(err, &callErr) {
				t.Fatalf("Call error = %v, want an *ErrCallingWebhook", err)
			}
			if want := strings.ReplaceAll(tt.want, "%s", srv.URL); err.Error() != want {
				t.Errorf("Call error:\n got %s\nwant %s", err, want)
			}
			if callErr.Status.Code != tt.status.Code || callErr.Status.Message != tt.status.Message {
				t.Errorf("Status = %s %q, want %s %q", callErr.Status.Code, callErr.Status.Message, tt.status.Code, tt.status.Message)
			}
			if n := testutil.ToFloat64(c.metrics.failures.WithLabelValues("w", "validating", tt.reason)); n != 1 {
				t.Errorf("dynapi_webhook_failures_total{reason=%q} = %v, want 1", tt.reason, n)
			}
		})
	}
}

// TestAnswerPastDeadline: an answer read once the call's deadline has
// passed is the deadline's failure, not what the webhook sent. Go's
// transport can hand over such an answer when it races the deadline, and
// a webhook that stops on cancellation sends an empty 200 then (this made
// an admission test fail once in CI, "0-length response").
func TestAnswerPastDeadline(t *testing.T) {
	t.Parallel()
	u, err := url.Parse("https://hook.example/validate?timeout=1s")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ctx    func() (context.Context, context.CancelFunc)
		want   string
		reason string
	}{
		{"deadline passed", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		}, `failed calling webhook "w": failed to call webhook: Post "https://hook.example/validate?timeout=1s": context deadline exceeded`, FailTimeout},
		{"caller gone", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, `failed calling webhook "w": failed to call webhook: Post "https://hook.example/validate?timeout=1s": context canceled`, FailCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}
			body, _, reason, err := New(Options{}).read(ctx, &Request{Name: "w"}, u, resp)
			if body != nil || err == nil || err.Error() != tt.want || reason != tt.reason {
				t.Errorf("read = %q, %q, %v; want nil, %q, %s", body, reason, err, tt.reason, tt.want)
			}
		})
	}
}

// closedAddress is a loopback address nothing listens on.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}
