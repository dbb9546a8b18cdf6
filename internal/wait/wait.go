// Package wait holds the one way the engine's background loops pause, and
// the one way its tests wait for something to happen (Eventually).
package wait

import (
	"context"
	"time"
)

// Sleep waits for d, or less when ctx ends; it reports whether ctx is still
// live. A d of zero or less does not wait.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Nudge wakes a background loop before its pause ends: whatever changes
// what the loop must look at pokes it, and the pokes that come while a
// look is due already count as one. Make it with NewNudge.
type Nudge chan struct{}

// NewNudge returns a Nudge no one has poked.
func NewNudge() Nudge { return make(Nudge, 1) }

// Poke ends the current Pause, or the next one at once.
func (n Nudge) Poke() {
	select {
	case n <- struct{}{}:
	default: // a look is due already
	}
}

// Pause waits for d, a Poke, or ctx's end, whichever comes first; it
// reports whether ctx is still live.
func (n Nudge) Pause(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-n:
		return true
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Backoff is how long a background loop pauses after a pass: its interval
// after a pass that worked; after one that failed, First, doubled at each
// failure in a row and never past the interval. kube's controllers requeue
// a failed item the same way (an exponential rate limiter), so that a
// passing failure (a conflict, a restarting database) is retried in
// moments rather than at the next full look. The zero Backoff starts at
// 100 ms.
type Backoff struct {
	First time.Duration
	next  time.Duration
}

// After returns the pause that follows a pass that ended with err.
func (b *Backoff) After(err error, interval time.Duration) time.Duration {
	if err == nil {
		b.next = 0
		return interval
	}
	if b.next == 0 {
		b.next = b.First
		if b.next <= 0 {
			b.next = 100 * time.Millisecond
		}
	}
	pause := min(b.next, interval)
	b.next = min(2*b.next, interval)
	return pause
}
