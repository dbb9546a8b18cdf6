package watch

import (
	"context"
	"errors"
	"time"

	"github.com/dynapi/dynapi/engine"
)

// batchSize is how many events a subscriber copies out of the ring at once.
const batchSize = 64

var (
	errClosed = &engine.Error{Code: engine.CodeUnavailable,
		Message: "watch channel was closed: the server is shutting down"}
	errTooSlow = &engine.Error{Code: engine.CodeGone,
		Message: "watch channel was closed: the watcher is too slow, it fell behind the events kept in memory"}
)

// subscriber is one Subscribe call.
type subscriber struct {
	opts   engine.WatchOptions
	out    chan engine.Event
	cancel context.CancelCauseFunc
	err    error // set under Broadcaster.mu when the subscriber is dropped
}

// Subscribe streams, until ctx ends, every event of opts.Resource (all
// resources when zero) in opts.Namespace (all when empty) newer than
// opts.ResourceVersion, in order, each once: first from the storage's
// history when the ring no longer holds it, then from the ring. With
// opts.ProgressInterval it also sends an EventBookmark that often. A
// subscription that ends for another reason than ctx ends with an
// EventError: Gone when it fell behind the ring (too slow), Expired when
// the history it needed was compacted, ServiceUnavailable at Close.
func (b *Broadcaster) Subscribe(ctx context.Context, opts engine.WatchOptions) <-chan engine.Event {
	ctx, cancel := context.WithCancelCause(ctx)
	s := &subscriber{opts: opts, out: make(chan engine.Event, b.buffer), cancel: cancel}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		cancel(errClosed)
	} else {
		b.subs[s] = struct{}{}
		b.wantLocked(opts.Resource)
	}
	go b.serve(ctx, s)
	return s.out
}

// serve is a subscriber's goroutine.
func (b *Broadcaster) serve(ctx context.Context, s *subscriber) {
	defer close(s.out)
	defer b.remove(s)
	var tick <-chan time.Time
	if s.opts.ProgressInterval > 0 {
		t := time.NewTicker(s.opts.ProgressInterval)
		defer t.Stop()
		tick = t.C
	}
	pos, live := s.opts.ResourceVersion, false
	batch := make([]engine.Event, 0, batchSize)
	for {
		r := b.read(s, pos, batch[:0])
		switch {
		case r.err != nil:
			s.fail(ctx, r.err)
			return
		case r.behind && live:
			// Why drop: the events it missed are gone from memory, and
			// replaying them from the storage for a consumer that cannot
			// keep up would only move the pile-up to the database.
			s.fail(ctx, errTooSlow)
			return
		case r.behind || r.unpublished:
			if err := b.catchUp(ctx, s, pos, r.pos); err != nil {
				s.fail(ctx, err)
				return
			}
			pos = r.pos
			continue
		}
		live = true
		for _, ev := range r.events {
			if !s.send(ctx, ev) {
				s.fail(ctx, nil)
				return
			}
		}
		pos = r.pos
		if !s.pause(ctx, r, tick, pos) {
			s.fail(ctx, nil)
			return
		}
	}
}

// pause sends a bookmark when one is due and, once the subscriber has read
// everything, waits for new events. It returns false when ctx ended.
func (s *subscriber) pause(ctx context.Context, r readResult, tick <-chan time.Time, pos int64) bool {
	if r.more {
		select {
		case <-tick:
			return s.send(ctx, bookmark(s.opts, pos))
		default:
			return true
		}
	}
	select {
	case <-tick:
		return s.send(ctx, bookmark(s.opts, pos))
	case <-r.wake:
		return true
	case <-ctx.Done():
		return false
	}
}

// catchUp sends the events after pos up to upTo from the storage's history.
func (b *Broadcaster) catchUp(ctx context.Context, s *subscriber, pos, upTo int64) error {
	return b.replay(ctx, s.opts, pos, upTo, func(ev engine.Event) error {
		if !s.send(ctx, ev) {
			return context.Cause(ctx)
		}
		return nil
	})
}

// send delivers ev unless ctx ends first.
func (s *subscriber) send(ctx context.Context, ev engine.Event) bool {
	select {
	case s.out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// fail ends the subscription with an EventError carrying err, or with the
// cause of ctx's end when err is nil and the Broadcaster ended it. An
// error after the caller's ctx ended is not sent: nobody reads.
func (s *subscriber) fail(ctx context.Context, err error) {
	if err == nil || ctx.Err() != nil {
		var e *engine.Error
		if errors.As(context.Cause(ctx), &e) {
			select { // the consumer may be gone: do not wait for room
			case s.out <- engine.Event{Type: engine.EventError, Err: e}:
			default:
			}
		}
		return
	}
	s.send(ctx, engine.Event{Type: engine.EventError, Err: err})
}

// bookmark is the progress event at pos.
func bookmark(opts engine.WatchOptions, pos int64) engine.Event {
	return engine.Event{Type: engine.EventBookmark, Object: engine.Object{
		Key: engine.ObjectKey{Resource: opts.Resource, Namespace: opts.Namespace}, ResourceVersion: pos}}
}

// remove forgets s.
func (b *Broadcaster) remove(s *subscriber) {
	b.mu.Lock()
	delete(b.subs, s)
	b.mu.Unlock()
	s.cancel(nil)
}
