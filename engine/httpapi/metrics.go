package httpapi

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynapi/dynapi/engine/resource"
)

// component is the component label of the request metrics, as
// kube-apiserver's own requests carry it.
const component = "apiserver"

// requestMetrics are kube-apiserver's request metrics, with its names,
// labels and buckets, so that its dashboards and alerts read dynapi as
// they read a kube-apiserver.
type requestMetrics struct {
	requests    *prometheus.CounterVec
	durations   *prometheus.HistogramVec
	longRunning *prometheus.GaugeVec
	// sizes are the bytes of each response's body, and terminations the
	// requests refused in self-defense (429 of the in-flight limits, 504
	// of the request timeout), as kube-apiserver's.
	sizes        *prometheus.HistogramVec
	terminations *prometheus.CounterVec
	// watchEventsSent and watchEventSizes are the events sent to
	// watchers and their sizes, by group, version and resource.
	watchEventsSent *prometheus.CounterVec
	watchEventSizes *prometheus.HistogramVec
	// readOnly and mutating count the requests in flight, long-running
	// ones (watches) aside, as kube-apiserver's max-in-flight filter does.
	readOnly, mutating prometheus.Gauge
}

// newRequestMetrics builds the metrics and registers them with reg; a
// second registration with the same reg panics.
func newRequestMetrics(reg prometheus.Registerer) *requestMetrics {
	inflight := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_current_inflight_requests",
		Help: "Number of requests being served now, by request kind (readOnly, mutating); watches are not counted."},
		[]string{"request_kind"})
	m := &requestMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_request_total",
			Help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code."},
			[]string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "apiserver_request_duration_seconds",
			Help:    "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			Buckets: []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}},
			[]string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}),
		longRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_longrunning_requests",
			Help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way."},
			[]string{"verb", "group", "version", "resource", "subresource", "scope", "component"}),
		sizes: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "apiserver_response_sizes",
			Help:    "Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.",
			Buckets: prometheus.ExponentialBuckets(1000, 10.0, 7)},
			[]string{"verb", "group", "version", "resource", "subresource", "scope", "component"}),
		terminations: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_request_terminations_total",
			Help: "Number of requests which apiserver terminated in self-defense."},
			[]string{"verb", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		watchEventsSent: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_watch_events_total",
			Help: "Number of events sent in watch clients"}, []string{"group", "version", "resource"}),
		watchEventSizes: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "apiserver_watch_events_sizes",
			Help: "Watch event size distribution in bytes", Buckets: prometheus.ExponentialBuckets(1024, 2.0, 8)},
			[]string{"group", "version", "resource"}),
		readOnly: inflight.WithLabelValues("readOnly"),
		mutating: inflight.WithLabelValues("mutating"),
	}
	reg.MustRegister(m.requests, m.durations, m.longRunning, inflight, m.sizes, m.terminations,
		m.watchEventsSent, m.watchEventSizes)
	return m
}

// instrument counts, times and measures every request, by the labels of
// its requestInfo, and writes its access log line, once the handler is
// done: only then is it known whether the resource it names is served
// (see requestLabels).
func (s *Server) instrument(next http.Handler) http.Handler {
	m := s.metrics
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := requestInfoFrom(r)
		inflight := m.inflight(info)
		if inflight != nil {
			inflight.Inc()
		}
		rec := &statusRecorder{ResponseWriter: w}
		returned := false
		// Deferred, so that a panic is counted too: recoverPanics, around
		// this, answers it with a 500 when nothing was written yet.
		defer func() {
			if inflight != nil {
				inflight.Dec()
			}
			code := rec.status
			if code == 0 && !returned {
				code = http.StatusInternalServerError
			}
			elapsed := time.Since(start)
			m.observe(r, info, code, rec.bytes, elapsed)
			s.logAccess(r, info, code, rec.bytes, elapsed)
		}()
		next.ServeHTTP(rec, r)
		returned = true
	})
}

// inflight is the gauge a request counts in: nil for a watch, which
// kube-apiserver leaves out of its in-flight limits as long-running.
func (m *requestMetrics) inflight(info *requestInfo) prometheus.Gauge {
	switch info.Verb {
	case "watch":
		return nil
	case "get", "list":
		return m.readOnly
	}
	return m.mutating
}

func (m *requestMetrics) observe(r *http.Request, info *requestInfo, code int, bytes int64, elapsed time.Duration) {
	l := labelsOf(r, info)
	m.requests.WithLabelValues(l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, component,
		codeString(code)).Inc()
	m.durations.WithLabelValues(l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, component).
		Observe(elapsed.Seconds())
	if info.Verb != "watch" { // a watch's bytes are its events': apiserver_watch_events_sizes
		m.sizes.WithLabelValues(l.verb, l.group, l.version, l.resource, l.subresource, l.scope, component).Observe(float64(bytes))
	}
	if info.terminated {
		m.terminations.WithLabelValues(l.verb, l.group, l.version, l.resource, l.subresource, l.scope, component, codeString(code)).Inc()
	}
}

// watching counts an open watch in apiserver_longrunning_requests until
// the returned gauge is decremented. Called once the watch is established.
func (m *requestMetrics) watching(r *http.Request) prometheus.Gauge {
	l := labelsOf(r, requestInfoFrom(r))
	g := m.longRunning.WithLabelValues(l.verb, l.group, l.version, l.resource, l.subresource, l.scope, component)
	g.Inc()
	return g
}

// eventMetrics count the events one watch sends.
type eventMetrics struct {
	sent  prometheus.Counter
	sizes prometheus.Observer
}

// watchEvents are the event metrics of a watch of t, looked up once per
// watch rather than per event.
func (m *requestMetrics) watchEvents(t resource.Target) eventMetrics {
	gr := t.GroupResource()
	return eventMetrics{sent: m.watchEventsSent.WithLabelValues(gr.Group, t.Version.Name, gr.Resource),
		sizes: m.watchEventSizes.WithLabelValues(gr.Group, t.Version.Name, gr.Resource)}
}

// observe counts one event of size bytes (< 0: a CSV row, counted but of
// no frame size).
func (e eventMetrics) observe(size int) {
	e.sent.Inc()
	if size >= 0 {
		e.sizes.Observe(float64(size))
	}
}

// statusRecorder remembers the status code of a response. It is an
// http.Flusher whatever it wraps, since watches and long lists stream.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64 // of the body written
}

// WriteHeader records the first final status code.
func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 && code >= http.StatusOK {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write writes body bytes; before any WriteHeader, the status is 200.
func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush sends what is buffered, when the wrapped writer can.
func (w *statusRecorder) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the wrapped writer.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
