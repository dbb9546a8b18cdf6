package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynapi/dynapi/engine"
)

// storeMetrics are the Store's metrics an operator alerts on: kube's
// object counts, the latency of each storage request, and the connection
// pool's use. A Store without Options.Metrics keeps none (nil).
type storeMetrics struct {
	latency *prometheus.HistogramVec
	// objects is kube's apiserver_storage_objects{resource="plural.group"}
	// (deprecated in 1.34, stable, still what dashboards read) and
	// resourceObjects its successor apiserver_resource_objects{group,resource}.
	objects, resourceObjects *prometheus.GaugeVec
	// counted are the resources of the last count; only countEvery's
	// goroutine touches it.
	counted map[engine.GroupResource]float64
	// recounted asks countEvery for a count now (buffered, one pending).
	recounted chan struct{}
}

// recount has the objects counted now: once the schema is migrated, the
// count at Open may have found no table.
func (m *storeMetrics) recount() {
	if m == nil {
		return
	}
	select {
	case m.recounted <- struct{}{}:
	default: // one is pending already
	}
}

// newStoreMetrics registers the Store's metrics with reg; nil when reg is.
func newStoreMetrics(reg prometheus.Registerer, pools ...*pgxpool.Pool) *storeMetrics {
	if reg == nil {
		return nil
	}
	m := &storeMetrics{
		// kube's etcd_request_duration_seconds, its labels and buckets,
		// under a name that does not say etcd: dashboards that read kube's
		// name are told apart from this one on purpose.
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "dynapi_storage_request_duration_seconds",
			Help: "PostgreSQL request latency in seconds for each operation and object type (kube's etcd_request_duration_seconds).",
			Buckets: []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
				4, 5, 6, 8, 10, 15, 20, 30, 45, 60}},
			[]string{"operation", "group", "resource"}),
		objects: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_storage_objects",
			Help: "Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1."},
			[]string{"resource"}),
		resourceObjects: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_resource_objects",
			Help: "Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1."},
			[]string{"group", "resource"}),
		recounted: make(chan struct{}, 1),
	}
	reg.MustRegister(m.latency, m.objects, m.resourceObjects, poolCollector{pools})
	return m
}

// since observes the latency of one storage request begun at start.
// Deferred by each of the Store's requests: `defer s.metrics.since(…)`.
func (m *storeMetrics) since(operation string, gr engine.GroupResource, start time.Time) {
	if m == nil {
		return
	}
	m.latency.WithLabelValues(operation, gr.Group, gr.Resource).Observe(time.Since(start).Seconds())
}

// objectCountsSQL counts the objects of each resource. Why a count rather than
// the planner's statistics: these are per table, not per resource. Why
// not at each scrape: it reads every row (182 ms at a million objects on
// 2 cores, BenchmarkObjectCounts); once a minute (Options.CountInterval,
// kube-apiserver's default), it costs 0.3% of a core.
const objectCountsSQL = `SELECT resource, count(*) FROM objects GROUP BY resource`

// countEvery refreshes the object counts every interval, and when
// recount asks, until ctx ends; nothing when interval is 0. A failed
// count sets nothing and is logged.
func (s *Store) countEvery(ctx context.Context, interval time.Duration) {
	if s.metrics == nil || interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.metrics.recounted:
		}
		if err := s.countObjects(ctx); err != nil && ctx.Err() == nil {
			s.opts.Logger.Warn("count objects for apiserver_storage_objects", "err", err)
		}
	}
}

// countObjects sets the object count of each resource.
func (s *Store) countObjects(ctx context.Context) error {
	rows, err := s.pool.Query(ctx, objectCountsSQL)
	if err != nil {
		return err
	}
	defer rows.Close()
	counted := map[engine.GroupResource]float64{}
	for rows.Next() {
		var resource string
		var n int64
		if err := rows.Scan(&resource, &n); err != nil {
			return err
		}
		counted[parseResource(resource)] = float64(n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// A resource emptied since the last count reads 0, not its old count.
	for gr := range s.metrics.counted {
		if _, ok := counted[gr]; !ok {
			counted[gr] = 0
		}
	}
	for gr, n := range counted {
		s.metrics.objects.WithLabelValues(gr.String()).Set(n)
		s.metrics.resourceObjects.WithLabelValues(gr.Group, gr.Resource).Set(n)
	}
	s.metrics.counted = counted
	return nil
}
