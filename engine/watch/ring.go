package watch

import "github.com/dynapi/dynapi/engine"

// ring holds the most recent events, oldest first, bounded by count and by
// bytes. Every event newer than floor that was pushed is still held; the
// events at or below floor were evicted (or never pushed).
type ring struct {
	buf      []engine.Event // circular; len(buf) is the count limit
	head, n  int            // index of the oldest event; number held
	bytes    int64          // sum of eventSize over the events held
	maxBytes int64
	floor    int64
}

func newRing(maxEvents int, maxBytes int64, floor int64) *ring {
	return &ring{buf: make([]engine.Event, maxEvents), maxBytes: maxBytes, floor: floor}
}

// eventSize is what an event costs the ring: its bodies and some overhead.
func eventSize(ev engine.Event) int64 {
	return int64(len(ev.Object.Body)+len(ev.Prev)) + 256
}

// at returns the i-th oldest event held.
func (r *ring) at(i int) *engine.Event {
	return &r.buf[(r.head+i)%len(r.buf)]
}

// push appends ev, newer than every event held, evicting the oldest ones
// beyond the limits.
func (r *ring) push(ev engine.Event) {
	if r.n == len(r.buf) {
		r.evict()
	}
	*r.at(r.n) = ev
	r.n++
	r.bytes += eventSize(ev)
	for r.bytes > r.maxBytes && r.n > 1 {
		r.evict()
	}
}

// evict drops the oldest event; floor becomes its resourceVersion.
func (r *ring) evict() {
	old := r.at(0)
	r.floor = old.Object.ResourceVersion
	r.bytes -= eventSize(*old)
	*old = engine.Event{} // let the bodies be collected
	r.head = (r.head + 1) % len(r.buf)
	r.n--
}

// reset empties the ring and sets its floor to rv.
func (r *ring) reset(rv int64) {
	for r.n > 0 {
		r.evict()
	}
	r.floor = rv
}

// after returns the index of the oldest event newer than rv (r.n if none).
// rv must be at least floor.
func (r *ring) after(rv int64) int {
	lo, hi := 0, r.n
	for lo < hi {
		mid := (lo + hi) / 2
		if r.at(mid).Object.ResourceVersion <= rv {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
