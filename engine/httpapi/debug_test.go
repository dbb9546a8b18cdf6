package httpapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/httpapi"
)

// TestProfiling: Go's profiler is served only when profiling is on;
// /metrics always.
func TestProfiling(t *testing.T) {
	tests := []struct {
		profiling bool
		path      string
		code      int
		body      string // a substring of the answer
	}{
		{false, "/debug/pprof/", http.StatusNotFound, `"reason":"NotFound"`},
		{false, "/debug/pprof/cmdline", http.StatusNotFound, `"reason":"NotFound"`},
		{false, "/metrics", http.StatusOK, "apiserver_current_inflight_requests"},
		{true, "/debug/pprof/", http.StatusOK, "goroutine"},
		{true, "/debug/pprof/cmdline", http.StatusOK, "-test."},
		{true, "/debug/pprof/goroutine?debug=1", http.StatusOK, "goroutine profile"},
	}
	for _, tt := range tests {
		t.Run(strconv.FormatBool(tt.profiling)+tt.path, func(t *testing.T) {
			s := newTestServerOptions(t, httpapi.Options{Profiling: tt.profiling})
			r := s.do(http.MethodGet, tt.path, "", "")
			if r.code != tt.code || !strings.Contains(r.String(), tt.body) {
				t.Errorf("GET %s = %d %.200q; want %d with %q", tt.path, r.code, r.body, tt.code, tt.body)
			}
		})
	}
}
