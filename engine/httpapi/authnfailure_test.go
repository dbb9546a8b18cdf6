package httpapi

import (
	"testing"
	"time"
)

// A flood of refused logins writes a burst of lines, then one a second,
// each counting the lines left out before it.
func TestLogLimiter(t *testing.T) {
	t.Parallel()
	var l logLimiter
	start := time.Unix(1000, 0)
	for i := range logFailureBurst {
		if n, ok := l.allow(start); !ok || n != 0 {
			t.Fatalf("line %d of the burst: ok %v, suppressed %d", i, ok, n)
		}
	}
	for range 500 {
		if _, ok := l.allow(start.Add(logFailureEvery / 2)); ok {
			t.Fatal("a line beyond the burst was written")
		}
	}
	if n, ok := l.allow(start.Add(logFailureEvery)); !ok || n != 500 {
		t.Fatalf("a second later: ok %v, suppressed %d, want 500", ok, n)
	}
	if n, ok := l.allow(start.Add(time.Hour)); !ok || n != 0 {
		t.Fatalf("an hour later: ok %v, suppressed %d", ok, n)
	}
}
