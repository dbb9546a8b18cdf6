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
// as such; the same error because the client hung up is not.
func TestWriteErrorLogLevel(t *testing.T) {
	gone, hangUp := context.WithCancel(context.Background())
	hangUp()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"database failure", context.Background(), errors.New("connection reset"), "level=ERROR"},
		{"client hung up", gone, context.Canceled, "level=DEBUG"},
		{"canceled, client still there", context.Background(), context.Canceled, "level=ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			s := &Server{logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
			r := httptest.NewRequestWithContext(tt.ctx, http.MethodGet, "/apis/x", nil)
			w := httptest.NewRecorder()
			s.writeError(w, r, tt.err)
			if w.Code != http.StatusInternalServerError || !strings.Contains(logs.String(), tt.want) {
				t.Errorf("status %d, log %q; want 500 and %s", w.Code, logs.String(), tt.want)
			}
		})
	}
}
