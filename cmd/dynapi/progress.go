package main

import (
	"log/slog"
	"sync"
	"time"
)

// logProgress is the progress of serve's and migrate's loads, logged.
func logProgress(cfg Config, logger *slog.Logger) func(done, total int) {
	return startProgress(cfg.ProgressInterval, func(done, total int) {
		logger.Info("compiling definitions", "done", done, "total", total)
	}).update
}

// progress tells how far compiling the definitions is, when it takes
// long: a line once interval has passed since the start, then at most one
// per interval, and the last one once all are compiled. Loading hundreds
// of published CustomResourceDefinitions takes seconds; a load that takes
// less prints nothing.
type progress struct {
	interval time.Duration
	print    func(done, total int)

	mu      sync.Mutex
	last    time.Time // of the start, then of the last line
	printed bool
}

// startProgress returns a progress whose clock starts now, and again at
// each load (done 0); interval 0 is a second.
func startProgress(interval time.Duration, print func(done, total int)) *progress {
	if interval <= 0 {
		interval = time.Second
	}
	return &progress{interval: interval, print: print, last: time.Now()}
}

// update is registry.LoadOptions.Progress. Why a line per update rather
// than a ticker: no goroutine to stop, and a test can tell what is printed
// without waiting for a clock.
func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if done == 0 { // a load starts
		p.last, p.printed = now, false
		return
	}
	if now.Sub(p.last) < p.interval && !(p.printed && done == total) {
		return
	}
	p.last, p.printed = now, true
	p.print(done, total)
}
