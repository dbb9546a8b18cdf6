// Package watch fans one ordered stream of storage events out to many
// watchers. The storage publishes every event once, in resourceVersion
// order, with the resourceVersion up to which its history is complete (the
// watermark); each subscriber reads from a shared in-memory ring of recent
// events at its own pace, and history older than the ring comes from the
// storage's Replayer. It is storage-agnostic, as kine's Broadcaster is: the
// storage owns how the ordered stream is produced.
package watch

import (
	"context"
	"sync"

	"github.com/dynapi/dynapi/engine"
)

// Replayer reads history from the storage: it calls each, in order, for
// every event of opts' resource (and namespace) with after < resourceVersion
// ≤ upTo, and returns the first error each returns. Errors: Expired when
// events after after were compacted.
type Replayer func(ctx context.Context, opts engine.WatchOptions, after, upTo int64, each func(engine.Event) error) error

// Options bound the memory a Broadcaster uses. Zero values take the defaults.
type Options struct {
	// MaxEvents and MaxBytes bound the ring of recent events (default
	// 10,000 events and 32 MiB). A subscriber that falls further behind is
	// dropped.
	MaxEvents int
	MaxBytes  int64
	// Buffer is the capacity of each subscriber's channel (default 64).
	Buffer int
}

// Broadcaster fans events out to subscribers. It is safe for concurrent use.
type Broadcaster struct {
	replay Replayer
	buffer int

	mu       sync.RWMutex
	ring     *ring
	rv       int64         // watermark: every event up to rv was published
	changed  chan struct{} // closed and replaced whenever rv moves
	subs     map[*subscriber]struct{}
	closed   bool
	wanted   map[engine.GroupResource]*wanted // what subscribers asked for; the zero key: everything
	gen      uint64                           // grows at each new entry of wanted
	interest Interest                         // wanted, as handed to the storage
	partial  int64                            // the watermark of the last Publish that left resources out
}

// New returns a Broadcaster whose history up to start is only in the
// storage (read with replay).
func New(start int64, replay Replayer, opts Options) *Broadcaster {
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = 10000
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 32 << 20
	}
	if opts.Buffer <= 0 {
		opts.Buffer = 64
	}
	return &Broadcaster{replay: replay, buffer: opts.Buffer, ring: newRing(opts.MaxEvents, opts.MaxBytes, start),
		rv: start, changed: make(chan struct{}), subs: map[*subscriber]struct{}{},
		wanted: map[engine.GroupResource]*wanted{}}
}

// Publish appends events, which must be newer than the watermark and in
// resourceVersion order, and moves the watermark to upTo (at least the
// last event's resourceVersion): the history up to upTo is then complete.
// The events must be all those up to upTo of the resources in, an Interest
// taken before they were read, wants; others may be left out (Everything:
// none is). Events are shared by every subscriber: nobody may modify their
// bodies.
func (b *Broadcaster) Publish(in Interest, events []engine.Event, upTo int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ev := range events {
		b.ring.push(ev)
	}
	if upTo > b.rv {
		b.rv = upTo
	}
	b.publishedLocked(in, b.rv)
	b.wakeLocked()
}

// Reset forgets the ring and moves the watermark to upTo, when the storage
// lost its place (history it had not published was compacted). Every
// current subscriber ends with an EventError carrying err.
func (b *Broadcaster) Reset(upTo int64, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ring.reset(upTo)
	b.rv = upTo
	for s := range b.subs {
		s.err = err
	}
	b.wakeLocked()
}

// wakeLocked wakes every goroutine waiting on Changed.
func (b *Broadcaster) wakeLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// ResourceVersion returns the watermark: the history up to it is complete.
func (b *Broadcaster) ResourceVersion() int64 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.rv
}

// Changed returns a channel closed at the next move of the watermark. Read
// it before ResourceVersion to wait without missing a move.
func (b *Broadcaster) Changed() <-chan struct{} {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.changed
}

// Close ends every subscription: each channel gets an EventError
// (ServiceUnavailable) if it has room, and is closed. Later Subscribe calls
// return closed channels.
func (b *Broadcaster) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for s := range b.subs {
		s.cancel(errClosed)
	}
}
