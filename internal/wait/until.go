package wait

import (
	"context"
	"time"
)

// Until calls cond until it returns true or timeout has passed, and
// reports whether it returned true. It calls cond at once, then waits 5 ms
// before the next call, and twice as long each time after, up to 50 ms: a
// quick answer comes quickly, and a slow one is not asked too often. A
// timeout of zero or less calls cond once.
func Until(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		Sleep(context.Background(), min(pause, left))
	}
}

// TB is the part of testing.TB that Eventually uses (this package serves
// production code too, which has no business importing testing).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Eventually waits, as Until does, for cond to report ok, and returns how
// long that took. When timeout passes first, it stops the test with the
// last why cond gave: cond says what it waits for and what it saw.
func Eventually(tb TB, timeout time.Duration, cond func() (ok bool, why string)) time.Duration {
	tb.Helper()
	start := time.Now()
	var why string
	if !Until(timeout, func() bool {
		var ok bool
		ok, why = cond()
		return ok
	}) {
		tb.Fatalf("not within %v: %s", timeout, why)
	}
	return time.Since(start)
}
