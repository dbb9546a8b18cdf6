package conversionwebhook

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// kube's failure types, the failure_type label.
const (
	failCall      = "conversion_webhook_call_failure"
	failMalformed = "conversion_webhook_malformed_response_failure"
	failPartial   = "conversion_webhook_partial_response_failure"
	failInvalid   = "conversion_webhook_invalid_converted_object_failure"
)

// metrics are kube's conversion webhook metrics, with its names, labels
// and buckets (k8s.io/apiextensions-apiserver/pkg/apiserver/conversion).
type metrics struct {
	latency  *prometheus.HistogramVec
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "apiserver_crd_conversion_webhook_duration_seconds",
			Help: "CRD webhook conversion duration in seconds", Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)},
			[]string{"crd_name", "from_version", "to_version", "succeeded"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_conversion_webhook_request_total",
			Help: "Counter for conversion webhook requests with success/failure and failure error type"},
			[]string{"result", "failure_type"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "apiserver_conversion_webhook_duration_seconds",
			Help:    "Conversion webhook request latency",
			Buckets: []float64{0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 45, 60}},
			[]string{"result", "failure_type"}),
	}
	if reg != nil {
		reg.MustRegister(m.latency, m.requests, m.duration)
	}
	return m
}

// observe records one call; failure is "" when it succeeded.
func (m *metrics) observe(crd, from, to string, took time.Duration, failure string) {
	result := "success"
	if failure != "" {
		result = "failure"
	}
	m.latency.WithLabelValues(crd, from, to, strconv.FormatBool(failure == "")).Observe(took.Seconds())
	m.requests.WithLabelValues(result, failure).Inc()
	m.duration.WithLabelValues(result, failure).Observe(took.Seconds())
}
