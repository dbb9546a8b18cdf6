package webhook

import (
	"crypto/x509"
	"errors"
	"strconv"
	"strings"
	"time"

	// Prometheus' own client, as engine/httpapi and engine/reload use it.
	"github.com/prometheus/client_golang/prometheus"
)

// Failure reasons, the reason label of dynapi_webhook_failures_total.
const (
	FailTimeout    = "timeout"            // the call's timeout (or the caller's deadline) passed
	FailCanceled   = "canceled"           // the caller gave up
	FailConnection = "connection"         // dialing or talking to the webhook failed
	FailTLS        = "tls"                // the webhook's certificate did not verify
	FailStatus     = "status"             // the webhook answered with a non-2xx status
	FailTooLarge   = "response_too_large" // the response passed the size bound
	FailEmpty      = "empty_response"     // a 2xx with no body
	FailConfig     = "config"             // the client config cannot be called (invalid)
)

// metrics are a Client's call-level metrics. kube-apiserver has none at
// this level (its metrics are per feature: apiserver_admission_webhook_*,
// apiserver_crd_conversion_webhook_duration_seconds), so they carry
// dynapi's prefix, and each feature adds kube's own on top. The two x509
// counters are kube's, with its names.
type metrics struct {
	requests   *prometheus.CounterVec
	durations  *prometheus.HistogramVec
	failures   *prometheus.CounterVec
	missingSAN prometheus.Counter
	sha1       prometheus.Counter
}

// newMetrics builds the metrics and registers them with reg, when not nil;
// a second registration with the same reg panics.
func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dynapi_webhook_requests_total",
			Help: "Webhook calls, by webhook name, type (admit, validating, conversion) and HTTP status code (0: no response)."},
			[]string{"name", "type", "code"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "dynapi_webhook_request_duration_seconds",
			Help: "Webhook call latency in seconds, by webhook name and type, failures included.",
			// kube's buckets for conversion webhook calls, 5 ms to 60 s.
			Buckets: []float64{0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 45, 60}},
			[]string{"name", "type"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dynapi_webhook_failures_total",
			Help: "Failed webhook calls, by webhook name, type and reason (timeout, canceled, connection, tls, status, response_too_large, empty_response, config)."},
			[]string{"name", "type", "reason"}),
		missingSAN: prometheus.NewCounter(prometheus.CounterOpts{Name: "apiserver_webhooks_x509_missing_san_total",
			Help: "Counts the number of requests to servers missing SAN extension in their serving certificate OR the number of connection failures due to the lack of x509 certificate SAN extension missing (either/or, based on the runtime environment)"}),
		sha1: prometheus.NewCounter(prometheus.CounterOpts{Name: "apiserver_webhooks_x509_insecure_sha1_total",
			Help: "Counts the number of requests to servers with insecure SHA1 signatures in their serving certificate OR the number of connection failures due to the insecure SHA1 signatures (either/or, based on the runtime environment)"}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.durations, m.failures, m.missingSAN, m.sha1)
	}
	return m
}

// observe records one call: its HTTP status code (0 for none), how long it
// took, and why it failed ("" when it did not).
func (m *metrics) observe(req *Request, code int, took time.Duration, reason string, err error) {
	m.requests.WithLabelValues(req.Name, req.Type, strconv.Itoa(code)).Inc()
	m.durations.WithLabelValues(req.Name, req.Type).Observe(took.Seconds())
	if reason == "" {
		return
	}
	m.failures.WithLabelValues(req.Name, req.Type, reason).Inc()
	m.observeX509(err)
}

// observeX509 counts, as kube does, a connection refused for a serving
// certificate without SANs or signed with SHA-1 (Go refuses both).
func (m *metrics) observeX509(err error) {
	var host x509.HostnameError
	if errors.As(err, &host) && host.Certificate != nil && len(host.Certificate.DNSNames) == 0 &&
		len(host.Certificate.IPAddresses) == 0 {
		m.missingSAN.Inc()
	}
	// Verification tells a SHA-1 signature only as the hint of an
	// UnknownAuthorityError, in its text.
	var authority x509.UnknownAuthorityError
	if errors.As(err, &authority) && strings.Contains(authority.Error(), "insecure algorithm") {
		m.sha1.Inc()
	}
}
