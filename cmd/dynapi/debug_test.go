package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDebugEndpoints: metrics always, the profiler only with profiling,
// everything else to the API.
func TestDebugEndpoints(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "api "+r.URL.Path) })
	tests := []struct {
		profiling bool
		path      string
		code      int
		body      string // a substring of the answer
	}{
		{false, "/metrics", http.StatusOK, "go_goroutines"},
		{false, "/debug/pprof/cmdline", http.StatusOK, "api /debug/pprof/cmdline"},
		{true, "/debug/pprof/cmdline", http.StatusOK, "-test."},
		{true, "/debug/pprof/", http.StatusOK, "goroutine"},
		{true, "/apis/shop.example.com/v1/widgets", http.StatusOK, "api /apis/shop.example.com/v1/widgets"},
		{false, "/", http.StatusOK, "api /"},
	}
	for _, tt := range tests {
		srv := httptest.NewServer(withDebug(api, newMetricsRegistry(), tt.profiling))
		code, body := httpGet(t, srv.URL+tt.path)
		srv.Close()
		if code != tt.code || !strings.Contains(body, tt.body) {
			t.Errorf("profiling=%v GET %s = %d %.80q; want %d with %q", tt.profiling, tt.path, code, body, tt.code, tt.body)
		}
	}
}
