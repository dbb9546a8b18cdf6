package watch

import "github.com/dynapi/dynapi/engine"

// readResult is what a subscriber at some position finds in the ring.
type readResult struct {
	events []engine.Event // matching events, in order
	pos    int64          // the subscriber's new position: everything up to it was read
	more   bool           // stopped because the batch was full
	behind bool           // the ring no longer holds the events after the position; pos is the watermark
	// unpublished: the storage left the events after the position out (no
	// subscriber wanted them then); pos is the watermark
	unpublished bool
	wake        <-chan struct{}
	err         error // the Broadcaster dropped the subscriber
}

// read copies into batch (up to its capacity) the events of s newer than pos.
func (b *Broadcaster) read(s *subscriber, pos int64, batch []engine.Event) readResult {
	b.mu.RLock()
	defer b.mu.RUnlock()
	r := readResult{pos: max(pos, b.rv), wake: b.changed, err: s.err}
	if r.err != nil {
		return r
	}
	if pos < b.ring.floor {
		r.behind = true
		return r
	}
	if pos < b.sinceLocked(s) {
		r.unpublished = true
		return r
	}
	for i := b.ring.after(pos); i < b.ring.n; i++ {
		ev := b.ring.at(i)
		if !matches(s.opts, ev) {
			continue
		}
		if len(batch) == cap(batch) {
			r.more, r.pos = true, batch[len(batch)-1].Object.ResourceVersion
			break
		}
		batch = append(batch, *ev)
	}
	r.events = batch
	return r
}

// matches reports whether ev concerns the watch opts.
func matches(opts engine.WatchOptions, ev *engine.Event) bool {
	key := ev.Object.Key
	return (opts.Resource == engine.GroupResource{} || key.Resource == opts.Resource) &&
		(opts.Namespace == "" || key.Namespace == opts.Namespace)
}
