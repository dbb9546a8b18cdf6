package webhook

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestMetrics: a call is counted by name, type and code, and timed, on the
// Registerer given; the timeout asked for is capped at MaxTimeout.
func TestMetrics(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "webhook test CA")
	var got seen
	srv := startTLS(t, ca.serving(t, nil, net.ParseIP("127.0.0.1")), false, echo(&got))
	reg := prometheus.NewPedanticRegistry()
	c := New(Options{Registerer: reg})
	req := Request{Name: "w", Type: "admit", Body: []byte(`{}`), Timeout: time.Hour,
		Config: ClientConfig{URL: ptr(srv.URL), CABundle: ca.pem}}
	if _, err := c.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got.query != "timeout=30s" {
		t.Errorf("a timeout of an hour was sent as %q, want timeout=30s (MaxTimeout)", got.query)
	}
	want := `
# HELP dynapi_webhook_requests_total Webhook calls, by webhook name, type (admit, validating, conversion) and HTTP status code (0: no response).
# TYPE dynapi_webhook_requests_total counter
dynapi_webhook_requests_total{code="200",name="w",type="admit"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "dynapi_webhook_requests_total"); err != nil {
		t.Error(err)
	}
	if n, err := testutil.GatherAndCount(reg, "dynapi_webhook_request_duration_seconds", "dynapi_webhook_failures_total",
		"apiserver_webhooks_x509_missing_san_total", "apiserver_webhooks_x509_insecure_sha1_total"); err != nil || n != 3 {
		t.Errorf("gathered %d series (%v), want 3: the histogram and the two x509 counters", n, err)
	}
}

// TestMissingSAN: a serving certificate with only a Common Name is refused
// in Go's words, and counted under kube's metric.
func TestMissingSAN(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "webhook test CA")
	srv := startTLS(t, ca.serving(t, nil), false, echo(new(seen)))
	c := New(Options{Resolver: resolverTo(t, srv)})
	_, err := c.Call(context.Background(), Request{Name: "w", Type: "conversion", Body: []byte(`{}`),
		Config: ClientConfig{Service: &ServiceReference{Namespace: "ns", Name: "svc-name"}, CABundle: ca.pem}})
	const want = `failed calling webhook "w": failed to call webhook: Post "https://svc-name.ns.svc:443/?timeout=10s": tls: failed to verify certificate: x509: certificate relies on legacy Common Name field, use SANs instead`
	if err == nil || err.Error() != want {
		t.Errorf("Call error:\n got %v\nwant %s", err, want)
	}
	if n := testutil.ToFloat64(c.metrics.missingSAN); n != 1 {
		t.Errorf("apiserver_webhooks_x509_missing_san_total = %v, want 1", n)
	}
}
