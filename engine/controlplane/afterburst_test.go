package controlplane

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/internal/wait"
)

// A burst of changes runs the work once, after it; a stopped afterBurst
// runs nothing.
func TestAfterBurstOncePerBurst(t *testing.T) {
	t.Parallel()
	var released atomic.Int32
	r := &afterBurst{settle: 200 * time.Millisecond, run: func() { released.Add(1) }}
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

// A burst of snapshot swaps prepares the OpenAPI documents once, after
// it, not once per swap.
func TestSwapsPrepareOpenAPIAfterTheBurst(t *testing.T) {
	t.Parallel()
	var prepared atomic.Int32
	c := &ControlPlane{}
	c.openapi.run, c.release.run = func() { prepared.Add(1) }, func() {}
	c.openapi.settle = 200 * time.Millisecond
	defer c.openapi.stop()
	for range 50 {
		c.swapped(registry.Empty())
	}
	wait.Eventually(t, 5*time.Second, func() (bool, string) {
		return prepared.Load() > 0, "not prepared after the burst"
	})
	time.Sleep(3 * c.openapi.settle) // a second build would come by now
	if n := prepared.Load(); n != 1 {
		t.Fatalf("prepared %d times after one burst, want 1", n)
	}
}
