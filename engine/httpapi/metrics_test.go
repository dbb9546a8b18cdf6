package httpapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestRequestMetrics: each request is counted by kube-apiserver's labels;
// a path naming nothing served leaves no trace of its names in the labels.
func TestRequestMetrics(t *testing.T) {
	s := newTestServer(t)
	s.create(widgets, widget("a", `{}`))
	s.mustDo(http.StatusCreated, http.MethodPost, widgets+"?dryRun=All", "application/json", widget("b", `{}`))
	s.mustDo(http.StatusNotFound, http.MethodGet, widgets+"/missing", "", "")
	s.mustDo(http.StatusOK, http.MethodGet, widgets, "", "")
	s.mustDo(http.StatusOK, http.MethodGet, "/apis/shop.example.com/v1/widgets", "", "")
	s.mustDo(http.StatusOK, http.MethodGet, "/api/v1/namespaces/default", "", "")
	s.mustDo(http.StatusNotFound, http.MethodGet, "/apis/shop.example.com/v1/namespaces/default/gadgets/g1", "", "")
	s.mustDo(http.StatusNotFound, http.MethodGet, "/apis/nowhere.example.com/v9/things", "", "")
	s.mustDo(http.StatusNotFound, http.MethodGet, widgets+"/a/sparkle", "", "")
	s.mustDo(http.StatusOK, http.MethodGet, "/healthz", "", "")
	s.mustDo(http.StatusNotFound, http.MethodGet, "/no/such/path", "", "")

	metrics := s.mustDo(http.StatusOK, http.MethodGet, "/metrics", "", "").String()
	const widgetsGV = `group="shop.example.com",version="v1",resource="widgets"`
	tests := []struct {
		name   string
		series string // the metric and some of its labels
		want   float64
	}{
		{"create", `apiserver_request_total{verb="POST",dry_run="",` + widgetsGV + `,subresource="",scope="resource",component="apiserver",code="201"}`, 1},
		{"dry-run create", `apiserver_request_total{verb="POST",dry_run="All",` + widgetsGV + `,scope="resource",code="201"}`, 1},
		{"get of a missing object", `apiserver_request_total{verb="GET",` + widgetsGV + `,scope="resource",code="404"}`, 1},
		{"list in a namespace", `apiserver_request_total{verb="LIST",` + widgetsGV + `,scope="namespace",code="200"}`, 1},
		{"list across namespaces", `apiserver_request_total{verb="LIST",` + widgetsGV + `,scope="cluster",code="200"}`, 1},
		{"namespace object", `apiserver_request_total{verb="GET",group="",version="v1",resource="namespaces",scope="resource",code="200"}`, 1},
		{"unknown resource or subresource", `apiserver_request_total{verb="GET",group="",version="",resource="",subresource="",scope="resource",code="404"}`, 2},
		{"unknown group", `apiserver_request_total{verb="LIST",group="",version="",resource="",scope="cluster",code="404"}`, 1},
		{"non-resource path", `apiserver_request_total{verb="GET",group="",resource="",subresource="/healthz",scope="",code="200"}`, 1},
		{"no route", `apiserver_request_total{verb="GET",group="",resource="",subresource="",scope="",code="404"}`, 1},
		{"duration", `apiserver_request_duration_seconds_count{verb="POST",dry_run="",` + widgetsGV + `,scope="resource"}`, 1},
		{"the scrape itself in flight", `apiserver_current_inflight_requests{request_kind="readOnly"}`, 1},
		{"no write in flight", `apiserver_current_inflight_requests{request_kind="mutating"}`, 0},
		{"response sizes", `apiserver_response_sizes_count{verb="POST",` + widgetsGV + `,scope="resource"}`, 2},
		{"response size of a health check", `apiserver_response_sizes_sum{verb="GET",subresource="/healthz"}`, 2},
	}
	for _, tt := range tests {
		if got, ok := metricValue(metrics, tt.series); !ok || got != tt.want {
			t.Errorf("%s: %s = %v (found %v), want %v", tt.name, tt.series, got, ok, tt.want)
		}
	}
	for _, name := range []string{"gadgets", "nowhere", "sparkle", "/no/such"} {
		if strings.Contains(metrics, name) {
			t.Errorf("a name from a path that is not served is in a label: %q", name)
		}
	}
}

// TestWatchIsLongRunning: an open watch counts in
// apiserver_longrunning_requests, not among the requests in flight, and
// still streams through the chain, each event counted and measured; it
// stops counting once it ends.
func TestWatchIsLongRunning(t *testing.T) {
	s := newTestServer(t)
	const series = `apiserver_longrunning_requests{verb="WATCH",group="shop.example.com",version="v1",resource="widgets",subresource="",scope="namespace",component="apiserver"}`
	w := s.watch(widgets + "?watch=true")
	s.waitMetric(series, 1)
	s.create(widgets, widget("a", `{}`))
	w.expect("ADDED", "a")
	metrics := s.mustDo(http.StatusOK, http.MethodGet, "/metrics", "", "").String()
	if got, _ := metricValue(metrics, `apiserver_current_inflight_requests{request_kind="readOnly"}`); got != 1 {
		t.Errorf("requests in flight during a watch: %v, want 1 (the scrape)", got)
	}
	for _, series := range []string{`apiserver_watch_events_total{group="shop.example.com",version="v1",resource="widgets"}`,
		`apiserver_watch_events_sizes_count{group="shop.example.com",version="v1",resource="widgets"}`} {
		if got, _ := metricValue(metrics, series); got != 1 {
			t.Errorf("%s = %v after one event, want 1", series, got)
		}
	}
	w.cancel()
	s.waitMetric(series, 0)
	metrics = s.mustDo(http.StatusOK, http.MethodGet, "/metrics", "", "").String()
	if got, _ := metricValue(metrics, `apiserver_request_total{verb="WATCH",resource="widgets",scope="namespace",code="200"}`); got != 1 {
		t.Errorf("ended watch counted %v times, want 1", got)
	}
}

// waitMetric scrapes /metrics until series has value want, failing the
// test after 10 seconds.
func (s *testServer) waitMetric(series string, want float64) {
	s.t.Helper()
	s.eventually(http.MethodGet, "/metrics", func(r response) bool {
		got, ok := metricValue(r.String(), series)
		return ok && got == want
	})
}

// metricValue finds, in a Prometheus text exposition, the value of the
// one sample of the metric of series that has all of its labels:
// `name{a="x",b="y"}` matches `name{a="x",b="y",c="z"} 3`.
func metricValue(exposition, series string) (float64, bool) {
	name, labels, _ := strings.Cut(strings.TrimSuffix(series, "}"), "{")
	var pairs []string
	if labels != "" {
		pairs = strings.Split(labels, ",")
	}
	for line := range strings.SplitSeq(exposition, "\n") {
		sample, value, ok := strings.Cut(line, " ")
		if !ok || (sample != name && !strings.HasPrefix(sample, name+"{")) || !hasLabels(sample, pairs) {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		return v, err == nil
	}
	return 0, false
}

func hasLabels(sample string, pairs []string) bool {
	for _, p := range pairs {
		if !strings.Contains(sample, "{"+p+",") && !strings.Contains(sample, ","+p+",") &&
			!strings.Contains(sample, ","+p+"}") && !strings.Contains(sample, "{"+p+"}") {
			return false
		}
	}
	return true
}
