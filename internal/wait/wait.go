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
