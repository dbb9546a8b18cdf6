package postgres

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// poolCollector exposes the request pool's statistics (pgxpool.Stat) at
// each scrape: how full it is, and how often and how long requests waited
// for a connection, the first sign that the pool is too small.
type poolCollector struct{ pool *pgxpool.Pool }

var (
	poolAcquired = prometheus.NewDesc("dynapi_storage_pool_acquired_connections",
		"Connections of the request pool in use now.", nil, nil)
	poolIdle = prometheus.NewDesc("dynapi_storage_pool_idle_connections",
		"Connections of the request pool open and idle now.", nil, nil)
	poolMax = prometheus.NewDesc("dynapi_storage_pool_max_connections",
		"Most connections the request pool opens (pool_max_conns).", nil, nil)
	poolAcquires = prometheus.NewDesc("dynapi_storage_pool_acquires_total",
		"Connections taken from the request pool.", nil, nil)
	poolEmptyAcquires = prometheus.NewDesc("dynapi_storage_pool_empty_acquires_total",
		"Connections taken from the request pool that had to wait: none was idle.", nil, nil)
	poolAcquireWait = prometheus.NewDesc("dynapi_storage_pool_acquire_wait_seconds_total",
		"Time spent waiting for a connection of the request pool.", nil, nil)
)

// Describe is prometheus.Collector's.
func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolAcquired, poolIdle, poolMax, poolAcquires, poolEmptyAcquires, poolAcquireWait} {
		ch <- d
	}
}

// Collect is prometheus.Collector's.
func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(poolAcquired, prometheus.GaugeValue, float64(st.AcquiredConns()))
	ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(st.IdleConns()))
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(st.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolAcquires, prometheus.CounterValue, float64(st.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolEmptyAcquires, prometheus.CounterValue, float64(st.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolAcquireWait, prometheus.CounterValue, st.AcquireDuration().Seconds())
}
