package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestMetricsAndProfiling: Main's one registry carries the Go runtime's,
// the storage's and the request metrics at /metrics; the profiler is
// served only with --profiling.
func TestMetricsAndProfiling(t *testing.T) {
	url, _ := startPostgres(t)
	tests := []struct {
		profiling bool
		path      string
		code      int
		body      []string // substrings of the answer
	}{
		{false, "/metrics", http.StatusOK, []string{"go_goroutines", "dynapi_definitions_loaded",
			`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/readyz",verb="GET",version=""} 1`}},
		{false, "/debug/pprof/cmdline", http.StatusNotFound, []string{`"reason":"NotFound"`}},
		{true, "/debug/pprof/cmdline", http.StatusOK, []string{"-test."}},
		{true, "/debug/pprof/", http.StatusOK, []string{"goroutine"}},
	}
	for _, tt := range tests {
		base := "http://" + startMain(t, Config{DatabaseURL: url, Profiling: tt.profiling}).Addr()
		httpGet(t, base+"/readyz")
		code, body := httpGet(t, base+tt.path)
		for _, want := range tt.body {
			if code != tt.code || !strings.Contains(body, want) {
				t.Errorf("profiling=%v GET %s = %d %.300q; want %d with %q", tt.profiling, tt.path, code, body, tt.code, want)
			}
		}
	}
}
