package postgres

import (
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// poolCollector exposes the request pools' statistics (pgxpool.Stat),
// summed, at each scrape: how full they are, and how often and how long
// requests waited for a connection, the first sign that they are too
// small. The pools are Store.pool and Store.writePool.
type poolCollector struct{ pools []*pgxpool.Pool }

var (
	poolAcquired = prometheus.NewDesc("dynapi_storage_pool_acquired_connections",
		"Connections of the request pools (reads, writes) in use now.", nil, nil)
	poolIdle = prometheus.NewDesc("dynapi_storage_pool_idle_connections",
		"Connections of the request pools open and idle now.", nil, nil)
	poolMax = prometheus.NewDesc("dynapi_storage_pool_max_connections",
		"Most connections the request pools open: pool_max_conns, and half as many for writes.", nil, nil)
	poolAcquires = prometheus.NewDesc("dynapi_storage_pool_acquires_total",
		"Connections taken from the request pools.", nil, nil)
	poolEmptyAcquires = prometheus.NewDesc("dynapi_storage_pool_empty_acquires_total",
		"Connections taken from the request pools that had to wait: none was idle.", nil, nil)
	poolAcquireWait = prometheus.NewDesc("dynapi_storage_pool_acquire_wait_seconds_total",
		"Time spent waiting for a connection of the request pools.", nil, nil)
)

// Describe is prometheus.Collector's.
func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolAcquired, poolIdle, poolMax, poolAcquires, poolEmptyAcquires, poolAcquireWait} {
		ch <- d
	}
}

// Collect is prometheus.Collector's.
func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	var acquired, idle, most, acquires, empty int64
	var wait time.Duration
	for _, p := range c.pools {
		st := p.Stat()
		acquired, idle, most = acquired+int64(st.AcquiredConns()), idle+int64(st.IdleConns()), most+int64(st.MaxConns())
		acquires, empty, wait = acquires+st.AcquireCount(), empty+st.EmptyAcquireCount(), wait+st.AcquireDuration()
	}
	ch <- prometheus.MustNewConstMetric(poolAcquired, prometheus.GaugeValue, float64(acquired))
	ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(idle))
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(most))
	ch <- prometheus.MustNewConstMetric(poolAcquires, prometheus.CounterValue, float64(acquires))
	ch <- prometheus.MustNewConstMetric(poolEmptyAcquires, prometheus.CounterValue, float64(empty))
	ch <- prometheus.MustNewConstMetric(poolAcquireWait, prometheus.CounterValue, wait.Seconds())
}
