package httpapi

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWriteErrorLogLevel: an unexpected error is a server error, logged
// as such; the same error because the client hung up is not. While the
// storage does not answer, or when the error says it went away (though it
// is back by the time it is asked), it is a 503 to retry, and a warning.
func TestWriteErrorLogLevel(t *testing.T) {
	gone, hangUp := context.WithCancel(context.Background())
	hangUp()
	tests := []struct {
		name        string
		ctx         context.Context
		err         error
		storageDown bool
		unavailable bool // the storage's errors say so
		want        string
		code        int
	}{
		{"database failure", context.Background(), errors.New("connection reset"), false, false, "level=ERROR", http.StatusInternalServerError},
		{"database down", context.Background(), errors.New("connection refused"), true, false, "level=WARN", http.StatusServiceUnavailable},
		{"database restarted meanwhile", context.Background(), errors.New("terminating connection"), false, true, "level=WARN", http.StatusServiceUnavailable},
		{"client hung up", gone, context.Canceled, true, true, "level=DEBUG", http.StatusInternalServerError},
		{"canceled, client still there", context.Background(), context.Canceled, false, false, "level=ERROR", http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			s := &Server{logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
				ready: func(context.Context) error {
					if tt.storageDown {
						return errors.New("unreachable")
					}
					return nil
				},
				down: func(error) bool { return tt.unavailable }}
			r := httptest.NewRequestWithContext(tt.ctx, http.MethodGet, "/apis/x", nil)
			w := httptest.NewRecorder()
			s.writeError(w, r, tt.err)
			if w.Code != tt.code || !strings.Contains(logs.String(), tt.want) {
				t.Errorf("status %d, log %q; want %d and %s", w.Code, logs.String(), tt.code, tt.want)
			}
		})
	}
}
