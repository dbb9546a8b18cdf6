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
	loaded, lastSuccess prometheus.Gauge
	problems            *prometheus.GaugeVec
	reloads             *prometheus.CounterVec
}

// newMetrics builds the metrics and registers them with reg, when not nil.
// A Registerer takes one Reloader's metrics: a second registration panics.
func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		loaded: prometheus.NewGauge(prometheus.GaugeOpts{Name: "dynapi_definitions_loaded",
			Help: "Resources (kinds) defined in the current registry snapshot."}),
		problems: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "dynapi_definition_problems",
			Help: "Problems found by the last build of the registry snapshot in each file (refused documents, definitions, rules; warnings apart)."},
			[]string{"file"}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: "dynapi_last_reload_success_timestamp_seconds",
			Help: "When the last build that swapped new definitions in ended, in seconds since the Unix epoch."}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dynapi_reloads_total",
			Help: "Builds of the registry snapshot, by result: success (new definitions swapped in, problems in some files or not) or failure (a folder could not be read)."},
			[]string{"result"}),
	}
	// Both series exist from the start, so that rate() sees the first failure.
	m.reloads.WithLabelValues("success")
	m.reloads.WithLabelValues("failure")
	if reg != nil {
		reg.MustRegister(m.loaded, m.problems, m.lastSuccess, m.reloads)
	}
	return m
}

// observe records one build, ended at now; pathOf names a problem's file
// as the user knows it.
//
// Why a build with problems is a success: the files it could read were
// swapped in, the refused ones serving on as before. Counted as a
// failure, one bad file made every later reload a failure and froze the
// timestamp until it was fixed, so that an alert on either fired for a
// problem already told apart, per file, by dynapi_definition_problems.
func (m *metrics) observe(b *build, now time.Time, pathOf func(registry.Problem) string) {
	m.loaded.Set(float64(len(b.snap.Resources())))
	m.problems.Reset()
	for _, p := range b.problems {
		if !p.Warning { // warnings (rules for a kind not loaded, no conversions folder) refuse nothing
			m.problems.WithLabelValues(pathOf(p)).Inc()
		}
	}
	if _, ok := unreadableFolder(b.problems); ok {
		m.reloads.WithLabelValues("failure").Inc()
		return
	}
	m.reloads.WithLabelValues("success").Inc()
	m.lastSuccess.Set(float64(now.UnixNano()) / 1e9)
}
