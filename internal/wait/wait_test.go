package wait

import (
	"context"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want bool
	}{
		{"waits the whole time", context.Background(), 5 * time.Millisecond, true},
		{"nothing to wait", context.Background(), -time.Second, true},
		{"context ended", ended, time.Hour, false},
		{"context ended, nothing to wait", ended, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			if got := Sleep(tt.ctx, tt.d); got != tt.want {
				t.Fatalf("Sleep = %v, want %v", got, tt.want)
			}
			if elapsed := time.Since(start); tt.want && elapsed < tt.d {
				t.Fatalf("returned after %s, before %s", elapsed, tt.d)
			}
		})
	}
}
