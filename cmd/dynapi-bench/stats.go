package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// measurement is what one phase (or its baseline) did: how many operations,
// how long they took together, each one's latency, and the failures.
type measurement struct {
	Ops       int
	Elapsed   time.Duration
	Latencies []time.Duration // sorted
	Errors    int
	FirstErr  error
	CPU       *cpuUse // nil: not metered
}

// OpsPerSec is the throughput over the phase's wall-clock time.
func (m measurement) OpsPerSec() float64 {
	if m.Elapsed <= 0 {
		return 0
	}
	return float64(m.Ops) / m.Elapsed.Seconds()
}

// Percentile returns the latency below which p percent of the operations
// finished (nearest rank); 0 with no operations.
func (m measurement) Percentile(p float64) time.Duration {
	return percentile(m.Latencies, p)
}

// percentile returns the nearest-rank p-th percentile of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(float64(len(sorted)) * p / 100))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// recorder collects latencies and errors from concurrent workers.
type recorder struct {
	mu        sync.Mutex
	latencies []time.Duration
	errors    int
	firstErr  error
}

// add records one worker's latencies and errors.
func (r *recorder) add(latencies []time.Duration, errs []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latencies = append(r.latencies, latencies...)
	r.errors += len(errs)
	if r.firstErr == nil && len(errs) > 0 {
		r.firstErr = errs[0]
	}
}

// fail records count failures for one reason.
func (r *recorder) fail(count int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors += count
	if r.firstErr == nil {
		r.firstErr = err
	}
}

// result sorts what was recorded into a measurement of ops operations.
func (r *recorder) result(ops int, elapsed time.Duration) measurement {
	r.mu.Lock()
	defer r.mu.Unlock()
	slices.Sort(r.latencies)
	return measurement{Ops: ops, Elapsed: elapsed, Latencies: r.latencies, Errors: r.errors, FirstErr: r.firstErr}
}

// op is one operation of a phase, which says how long its timed part took:
// a check of the answer after it is not the server's time.
type op func(ctx context.Context, i int) (time.Duration, error)

// timed makes an op of f, timing all of it.
func timed(f func(ctx context.Context, i int) error) op {
	return func(ctx context.Context, i int) (time.Duration, error) {
		start := time.Now()
		err := f(ctx, i)
		return time.Since(start), err
	}
}

// parallel runs op for every i in [0, n) on clients goroutines.
func parallel(ctx context.Context, clients, n int, op op) measurement {
	var next atomic.Int64
	var rec recorder
	var wg sync.WaitGroup
	start := time.Now()
	for range min(clients, n) {
		wg.Go(func() {
			var lat []time.Duration
			var errs []error
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				d, err := op(ctx, i)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				lat = append(lat, d)
			}
			rec.add(lat, errs)
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		rec.fail(1, fmt.Errorf("stopped: %w", err))
	}
	return rec.result(n, elapsed)
}
