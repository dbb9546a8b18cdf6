package reload

import (
	"time"

	// Prometheus' own client: the exposition format and metric types every
	// scraper understands, with no exporter of our own to maintain.
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynapi/dynapi/engine/registry"
)

// metrics are a Reloader's Prometheus metrics (see the package doc).
type metrics struct {
	loaded, problems, lastSuccess prometheus.Gauge
	reloads                       *prometheus.CounterVec
}

// newMetrics builds the metrics and registers them with reg, when not nil.
// A Registerer takes one Reloader's metrics: a second registration panics.
func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		loaded: prometheus.NewGauge(prometheus.GaugeOpts{Name: "dynapi_definitions_loaded",
			Help: "Resources (kinds) defined in the current registry snapshot."}),
		problems: prometheus.NewGauge(prometheus.GaugeOpts{Name: "dynapi_definition_problems",
			Help: "Problems found by the last build of the registry snapshot (refused files, documents, definitions, rules)."}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: "dynapi_last_reload_success_timestamp_seconds",
			Help: "When the last build of the registry snapshot without any problem ended, in seconds since the Unix epoch."}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dynapi_reloads_total",
			Help: "Builds of the registry snapshot, by result: success (no problem) or failure (something was refused)."}, []string{"result"}),
	}
	// Both series exist from the start, so that rate() sees the first failure.
	m.reloads.WithLabelValues("success")
	m.reloads.WithLabelValues("failure")
	if reg != nil {
		reg.MustRegister(m.loaded, m.problems, m.lastSuccess, m.reloads)
	}
	return m
}

// observe records one build, ended at now.
func (m *metrics) observe(b *build, now time.Time) {
	m.loaded.Set(float64(len(b.snap.Resources())))
	// Warnings (rules for a kind not loaded, no conversions folder) refuse
	// nothing: they are no failure.
	failures := registry.Failures(b.problems)
	m.problems.Set(float64(failures))
	if failures > 0 {
		m.reloads.WithLabelValues("failure").Inc()
		return
	}
	m.reloads.WithLabelValues("success").Inc()
	m.lastSuccess.Set(float64(now.UnixNano()) / 1e9)
}
