package controlplane

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// A burst of changes returns the memory once, after it; a stopped
// releaser returns nothing.
func TestReleaserOncePerBurst(t *testing.T) {
	t.Parallel()
	var released atomic.Int32
	r := &releaser{settle: 200 * time.Millisecond, release: func() { released.Add(1) }}
	for range 50 {
		r.changed()
	}
	wait.Eventually(t, 5*time.Second, func() (bool, string) {
		return released.Load() > 0, "no release after the burst"
	})
	time.Sleep(3 * r.settle) // a second release would come by now
	if n := released.Load(); n != 1 {
		t.Fatalf("%d releases after one burst, want 1", n)
	}
	r.stop()
	r.changed()
	time.Sleep(3 * r.settle)
	if n := released.Load(); n != 1 {
		t.Fatalf("%d releases after stop, want still 1", n)
	}
}
