package main

import (
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// newMetricsRegistry is the process's Prometheus registry, with the Go
// runtime's and the process's metrics, as kube-apiserver exposes them.
// A registry of its own rather than the global one, so that several Mains
// (tests) each have theirs.
func newMetricsRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// withDebug serves the metrics at /metrics and, with profiling, Go's
// profiler under /debug/pprof/, as kube-apiserver does (--profiling),
// beside the API. Every other path goes straight to the API: a ServeMux in
// front of it would route each request twice.
func withDebug(api http.Handler, metrics *prometheus.Registry, profiling bool) http.Handler {
	debug := http.NewServeMux()
	debug.Handle("/metrics", promhttp.HandlerFor(metrics, promhttp.HandlerOpts{}))
	debug.HandleFunc("/debug/pprof/", pprof.Index)
	debug.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	debug.HandleFunc("/debug/pprof/profile", pprof.Profile)
	debug.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	debug.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" || profiling && strings.HasPrefix(r.URL.Path, "/debug/pprof/") {
			debug.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}
