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
// storage does not answer, it is a 503 to retry.
func TestWriteErrorLogLevel(t *testing.T) {
	gone, hangUp := context.WithCancel(context.Background())
	hangUp()
	tests := []struct {
		name        string
		ctx         context.Context
		err         error
		storageDown bool
		want        string
		code        int
	}{
		{"database failure", context.Background(), errors.New("connection reset"), false, "level=ERROR", http.StatusInternalServerError},
		{"database down", context.Background(), errors.New("connection refused"), true, "level=ERROR", http.StatusServiceUnavailable},
		{"client hung up", gone, context.Canceled, true, "level=DEBUG", http.StatusInternalServerError},
		{"canceled, client still there", context.Background(), context.Canceled, false, "level=ERROR", http.StatusInternalServerError},
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
				}}
			r := httptest.NewRequestWithContext(tt.ctx, http.MethodGet, "/apis/x", nil)
			w := httptest.NewRecorder()
			s.writeError(w, r, tt.err)
			if w.Code != tt.code || !strings.Contains(logs.String(), tt.want) {
				t.Errorf("status %d, log %q; want %d and %s", w.Code, logs.String(), tt.code, tt.want)
			}
		})
	}
}
