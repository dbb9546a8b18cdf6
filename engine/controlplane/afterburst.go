package controlplane

import (
	"cmp"
	"runtime/debug"
	"sync"
	"time"
)

// settleTime is how long the definitions must stay unchanged before the
// memory their changes left behind is returned (see releaser). A burst of
// changes (a start, kubectl apply of a folder of CRDs) swaps snapshots
// every few milliseconds; a quarter of a second without one ends it.
const settleTime = 250 * time.Millisecond

// releaser returns to the system the memory that a burst of definition
// changes left behind, once the burst is over. Compiling definitions and
// rendering their documents makes garbage of several times the live heap
// (about 3× at 1,000 kinds, with GOGC at 200); the collector frees it,
// but the runtime returns the freed pages to the system only slowly, so
// the process would keep its peak size long after the load. One forced
// collection per burst (debug.FreeOSMemory) costs a fraction of what the
// burst did.
type releaser struct {
	// settle is the quiet time that ends a burst (0: settleTime), release
	// what returns the memory (nil: debug.FreeOSMemory).
	settle  time.Duration
	release func()

	mu      sync.Mutex
	timer   *time.Timer // nil until the first change
	stopped bool
}

// changed notes a definition change: the memory is returned settleTime
// after the last one.
func (r *releaser) changed() {
	r.mu.Lock()
	defer r.mu.Unlock()
	settle, release := cmp.Or(r.settle, settleTime), r.release
	if release == nil {
		release = debug.FreeOSMemory
	}
	switch {
	case r.stopped:
	case r.timer == nil:
		r.timer = time.AfterFunc(settle, release)
	default:
		r.timer.Reset(settle)
	}
}

// stop cancels a release not yet done; changed does nothing afterwards.
func (r *releaser) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	if r.timer != nil {
		r.timer.Stop()
	}
}
