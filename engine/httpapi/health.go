package httpapi

import (
	"context"
	"net/http"
	"time"
)

// readyTimeout bounds the storage check of /readyz.
const readyTimeout = 2 * time.Second

func (s *Server) handleLive(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}

// handleReady answers 200 only while the storage answers.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := s.ready(ctx); err != nil {
		s.logger.Warn("readyz: storage unreachable", "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("[-]storage failed: unreachable\nreadyz check failed"))
		return
	}
	_, _ = w.Write([]byte("ok"))
}

// storageDown reports whether the storage fails its readiness check now:
// asked only when a request failed for a reason dynapi did not expect.
func (s *Server) storageDown(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	return s.ready(ctx) != nil
}
