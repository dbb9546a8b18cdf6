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
