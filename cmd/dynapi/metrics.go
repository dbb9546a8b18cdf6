package main

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// newMetricsRegistry is the process's Prometheus registry, with the Go
// runtime's and the process's metrics, as kube-apiserver exposes them.
// Main owns it and hands it to the storage, the reloader and the HTTP API,
// which serves it at /metrics. A registry of its own rather than the
// global one, so that several Mains (tests) each have theirs.
func newMetricsRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}
