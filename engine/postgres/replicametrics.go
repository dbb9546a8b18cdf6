package postgres

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// replicaMetrics count where reads ran and why a replica was skipped.
type replicaMetrics struct {
	reads     *prometheus.CounterVec // op, target
	fallbacks *prometheus.CounterVec // replica, reason
	lagBytes  *prometheus.GaugeVec   // replica
	routing   prometheus.Histogram
	positions prometheus.Counter
}

// newReplicaMetrics returns the metrics of reads from replicas,
// registered with reg when not nil.
func newReplicaMetrics(reg prometheus.Registerer) *replicaMetrics {
	m := &replicaMetrics{
		reads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dynapi_storage_reads_total",
			Help: "Reads of the database by operation (get, list, poll: the watch poller's read of the events log) and target (primary, or a replica's host:port), when replicas are configured."},
			[]string{"op", "target"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dynapi_storage_replica_fallbacks_total",
			Help: "Reads that a replica did not serve, and the primary did, by replica and reason: lag (not replayed past the primary's position within --database-read-max-lag, or skipped for that long after), ahead (the watch poll found commits the primary did not show yet), error, or down (skipped for a second after an error)."},
			[]string{"replica", "reason"}),
		lagBytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "dynapi_storage_replica_lag_bytes",
			Help: "WAL bytes a replica had still to replay when a read last asked it (0: caught up)."},
			[]string{"replica"}),
		routing: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "dynapi_storage_read_routing_seconds",
			Help:    "Time a read spends choosing where it runs, when replicas are configured: the primary's position, and the wait for a replica to pass it.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25}}),
		positions: prometheus.NewCounter(prometheus.CounterOpts{Name: "dynapi_storage_position_queries_total",
			Help: "Queries of the primary's WAL position; each serves the reads that began while the one before ran."}),
	}
	if reg != nil {
		reg.MustRegister(m.reads, m.fallbacks, m.lagBytes, m.routing, m.positions)
	}
	return m
}

// read counts a read of op on t.
func (m *replicaMetrics) read(op string, t target) {
	m.reads.WithLabelValues(op, t.name()).Inc()
}

// fellBack counts a read that rep did not serve, because of err.
func (m *replicaMetrics) fellBack(rep *replica, err error) {
	reason := "error"
	switch {
	case errors.Is(err, errLagging):
		reason = "lag"
	case errors.Is(err, errAheadOfPrimary):
		reason = "ahead"
	case errors.Is(err, errDown):
		reason = "down"
	}
	m.fallbacks.WithLabelValues(rep.name, reason).Inc()
}

// lag records how far rep was behind a read's position.
func (m *replicaMetrics) lag(rep *replica, bytes int64) {
	m.lagBytes.WithLabelValues(rep.name).Set(float64(bytes))
}
