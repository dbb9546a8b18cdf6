package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// BenchmarkChain measures what the chain adds to a request: resolving its
// attributes (withRequestInfo) and counting and timing it (instrument),
// against the same handler called bare.
//
//	go test -run NONE -bench Chain -benchmem ./engine/httpapi/
func BenchmarkChain(b *testing.B) {
	const widgets = "/apis/shop.example.com/v1/namespaces/default/widgets"
	m := &Server{metrics: newRequestMetrics(prometheus.NewRegistry()), logger: slog.New(slog.DiscardHandler)}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
			info.served = true // as resourceHandler marks a resource it found
		}
		w.WriteHeader(http.StatusOK)
	})
	chains := []struct {
		name string
		h    http.Handler
	}{
		{"bare", handler},
		{"requestinfo", withRequestInfo(handler)},
		{"requestinfo+metrics", withRequestInfo(m.instrument(handler))},
	}
	requests := []struct {
		name, method, target string
	}{
		{"create", http.MethodPost, widgets},
		{"get", http.MethodGet, widgets + "/w1"},
		{"list", http.MethodGet, widgets + "?labelSelector=app%3Dweb&limit=500"},
		{"healthz", http.MethodGet, "/healthz"},
	}
	for _, rq := range requests {
		for _, c := range chains {
			b.Run(rq.name+"/"+c.name, func(b *testing.B) {
				r := httptest.NewRequest(rq.method, rq.target, nil)
				w := &discardWriter{header: http.Header{}}
				b.ReportAllocs()
				for b.Loop() {
					c.h.ServeHTTP(w, r)
				}
			})
		}
	}
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ header http.Header }

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}
