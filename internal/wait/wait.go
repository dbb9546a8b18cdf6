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
