package gc

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// lockCounter is a Store whose lock is always held by another process: a
// pass only counts itself and ends.
type lockCounter struct {
	Store
	passes atomic.Int64
}

func (l *lockCounter) TryLock(context.Context, string) (func(), bool, error) {
	l.passes.Add(1)
	return nil, false, nil
}

// A burst of deletes wakes a pass per pokeDelay, not a pass per delete:
// without the delay, the collector made a pass for each delete of a
// stream (40 here, a millisecond apart).
func TestBurstOfDeletesIsOnePass(t *testing.T) {
	store := &lockCounter{}
	c := &Collector{store: store, poked: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx, time.Hour, slog.Default()); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	passes := func(n int64) func() (bool, string) {
		return func() (bool, string) {
			got := store.passes.Load()
			return got >= n, fmt.Sprintf("%d passes, waiting for %d", got, n)
		}
	}
	wait.Eventually(t, 10*time.Second, passes(1)) // the pass at start
	start := time.Now()
	for range 40 {
		c.poke()
		time.Sleep(time.Millisecond)
	}
	span := time.Since(start)
	wait.Eventually(t, 10*time.Second, passes(2))
	wait.Sleep(ctx, 2*pokeDelay) // time for any pass the burst still owes
	// The pass at start, then one per pokeDelay of the burst, and one for
	// a poke that came during the last; and never one for every other
	// delete, however slow the machine made the burst.
	if got, most := store.passes.Load(), min(3+int64(span/pokeDelay), 20); got > most {
		t.Fatalf("40 deletes over %s made %d passes, want at most %d", span, got, most)
	}
}
