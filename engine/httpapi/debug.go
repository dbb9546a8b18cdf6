package httpapi

import (
	"net/http/pprof"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// debugRoutes serves the metrics at /metrics and, with profiling, Go's
// profiler under /debug/pprof/, as kube-apiserver does (--profiling):
// routes like any other, behind the same chain, so that every stage of
// it (metrics, authorization to come) sees them as the rest.
func (s *Server) debugRoutes() {
	s.router.Get("/metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}).ServeHTTP)
	if !s.profiling {
		return
	}
	// pprof.Index serves the index and every named profile (heap,
	// goroutine, allocs...); the others are handlers of their own.
	s.router.Get("/debug/pprof/*", pprof.Index)
	s.router.Get("/debug/pprof/cmdline", pprof.Cmdline)
	s.router.Get("/debug/pprof/profile", pprof.Profile)
	s.router.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	s.router.Get("/debug/pprof/trace", pprof.Trace)
}
