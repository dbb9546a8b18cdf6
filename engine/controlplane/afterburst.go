package controlplane

import (
	"sync"
	"time"
)

// settleTime is how long the definitions must stay unchanged before the
// work that follows a burst of changes runs (see afterBurst). A burst (a
// start, kubectl apply of a folder of CRDs) swaps snapshots every few
// milliseconds; a quarter of a second without one ends it.
const settleTime = 250 * time.Millisecond

// afterBurst runs work once a burst of definition changes is over,
// settleTime after the last change, instead of after each one:
//
//   - Returning memory. Compiling definitions and rendering their
//     documents makes garbage of several times the live heap (about 3× at
//     1,000 kinds, with GOGC at 200); the collector frees it, but the
//     runtime returns the freed pages to the system only slowly, so the
//     process would keep its peak size long after the load. One forced
//     collection per burst (debug.FreeOSMemory) costs a fraction of what
//     the burst did.
//   - Preparing the OpenAPI documents. Each build renders the v2 document
//     whole; after every swap of a burst of 1,000 CRDs created through the
//     API, that was a sixth of each process's CPU. A client that asks
//     during the burst has its documents built then, from the last built
//     (as kube-apiserver builds them on request).
type afterBurst struct {
	settle time.Duration // 0: settleTime
	run    func()

	mu      sync.Mutex
	timer   *time.Timer // nil until the first change
	stopped bool
}

// changed notes a definition change: run runs settle after the last one.
func (a *afterBurst) changed() {
	a.mu.Lock()
	defer a.mu.Unlock()
	settle := a.settle
	if settle == 0 {
		settle = settleTime
	}
	switch {
	case a.stopped:
	case a.timer == nil:
		a.timer = time.AfterFunc(settle, a.run)
	default:
		a.timer.Reset(settle)
	}
}

// stop cancels a run not yet started; changed does nothing afterwards.
func (a *afterBurst) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopped = true
	if a.timer != nil {
		a.timer.Stop()
	}
}
