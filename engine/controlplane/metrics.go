package controlplane

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// NewMetrics returns a process's Prometheus registry, with the Go
// runtime's and the process's metrics, as kube-apiserver exposes them.
// The caller hands it to the storage and to Start (Config.HTTP.Metrics),
// which gives it to the reloader and serves it at /metrics. A registry of
// its own rather than the global one, so that several servers (tests)
// each have theirs.
func NewMetrics() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}
