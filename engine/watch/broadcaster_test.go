package watch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
)

var (
	pipes  = engine.GroupResource{Group: "example.com", Resource: "pipes"}
	valves = engine.GroupResource{Group: "example.com", Resource: "valves"}
)

// history is a fake storage: every event ever published, and a compaction
// horizon at or below which replays fail with Expired.
type history struct {
	mu      sync.Mutex
	events  []engine.Event
	horizon int64
	replays int
}

func (h *history) add(evs ...engine.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, evs...)
}

func (h *history) replay(ctx context.Context, opts engine.WatchOptions, after, upTo int64, each func(engine.Event) error) error {
	h.mu.Lock()
	h.replays++
	if after < h.horizon {
		h.mu.Unlock()
		return engine.Errorf(engine.CodeExpired, "too old resource version: %d (%d)", after, h.horizon)
	}
	var out []engine.Event
	for _, ev := range h.events {
		if ev.Object.ResourceVersion > after && ev.Object.ResourceVersion <= upTo && matches(opts, &ev) {
			out = append(out, ev)
		}
	}
	h.mu.Unlock()
	for _, ev := range out {
		if err := each(ev); err != nil {
			return err
		}
	}
	return nil
}

func event(gr engine.GroupResource, ns string, rv int64) engine.Event {
	return engine.Event{Type: engine.EventAdded, Object: engine.Object{
		Key: engine.ObjectKey{Resource: gr, Namespace: ns, Name: fmt.Sprint("o", rv)}, ResourceVersion: rv,
		Body: []byte(fmt.Sprintf(`{"rv":%d}`, rv))}}
}

// publish publishes and records events rvs of pipes in namespace "a".
func publish(b *Broadcaster, h *history, rvs ...int64) {
	var evs []engine.Event
	for _, rv := range rvs {
		evs = append(evs, event(pipes, "a", rv))
	}
	h.add(evs...)
	b.Publish(Everything, evs, rvs[len(rvs)-1])
}

// receive reads n events from ch, failing after a second.
func receive(t *testing.T, ch <-chan engine.Event, n int) []engine.Event {
	t.Helper()
	var out []engine.Event
	for len(out) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("channel closed after %d events: %v", len(out), out)
			}
			out = append(out, ev)
		case <-time.After(time.Second):
			t.Fatalf("timed out after %d of %d events", len(out), n)
		}
	}
	return out
}

func rvs(evs []engine.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Object.ResourceVersion
	}
	return out
}

func TestSubscribeFromRingAndHistory(t *testing.T) {
	tests := []struct {
		name    string
		from    int64
		want    []int64
		replays int
	}{
		{"from the ring", 7, []int64{8, 9, 10, 11}, 0},
		{"from the ring's floor", 6, []int64{7, 8, 9, 10, 11}, 0},
		{"from history, then the ring", 2, []int64{3, 4, 5, 6, 7, 8, 9, 10, 11}, 1},
		{"from the future", 20, []int64{21}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &history{}
			b := New(0, h.replay, Options{MaxEvents: 4})
			defer b.Close()
			publish(b, h, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10) // the ring keeps 7..10
			ch := b.Subscribe(t.Context(), engine.WatchOptions{Resource: pipes, ResourceVersion: tt.from})
			if tt.from < 20 {
				time.Sleep(10 * time.Millisecond) // let it read the ring first
				publish(b, h, 11)
			} else {
				publish(b, h, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21)
			}
			got := rvs(receive(t, ch, len(tt.want)))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || h.replays != tt.replays {
				t.Errorf("got %v with %d replays; want %v with %d", got, h.replays, tt.want, tt.replays)
			}
		})
	}
}

func TestSubscribeFilters(t *testing.T) {
	h := &history{}
	b := New(0, h.replay, Options{})
	defer b.Close()
	evs := []engine.Event{event(pipes, "a", 1), event(valves, "a", 2), event(pipes, "b", 3), event(pipes, "a", 4)}
	b.Publish(Everything, evs, 5)
	tests := []struct {
		name string
		opts engine.WatchOptions
		want []int64
	}{
		{"resource", engine.WatchOptions{Resource: pipes}, []int64{1, 3, 4}},
		{"resource and namespace", engine.WatchOptions{Resource: pipes, Namespace: "a"}, []int64{1, 4}},
		{"everything", engine.WatchOptions{}, []int64{1, 2, 3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.ProgressInterval = 20 * time.Millisecond
			got := receive(t, b.Subscribe(t.Context(), tt.opts), len(tt.want)+1)
			if fmt.Sprint(rvs(got[:len(tt.want)])) != fmt.Sprint(tt.want) {
				t.Errorf("got %v; want %v", rvs(got), tt.want)
			}
			if bm := got[len(tt.want)]; bm.Type != engine.EventBookmark || bm.Object.ResourceVersion != 5 {
				t.Errorf("after the events: %v at %d; want a bookmark at the watermark 5", bm.Type, bm.Object.ResourceVersion)
			}
		})
	}
}

func TestSlowSubscriberDropped(t *testing.T) {
	h := &history{}
	b := New(0, h.replay, Options{MaxEvents: 8, Buffer: 2})
	defer b.Close()
	publish(b, h, 1, 2, 3)
	ch := b.Subscribe(t.Context(), engine.WatchOptions{Resource: pipes})
	time.Sleep(20 * time.Millisecond) // it sends 1 and 2, and waits for room for 3
	for rv := int64(4); rv <= 100; rv++ {
		publish(b, h, rv)
	}
	got := receive(t, ch, 4)
	if fmt.Sprint(rvs(got[:3])) != "[1 2 3]" || got[3].Type != engine.EventError || engine.ErrorCode(got[3].Err) != engine.CodeGone {
		t.Fatalf("got %v, then %+v; want 1, 2, 3 and a Gone error", rvs(got[:3]), got[3])
	}
	select {
	case _, ok := <-ch:
		if ok {
			t.Error("channel open after the error")
		}
	case <-time.After(time.Second):
		t.Error("channel not closed after the error")
	}
}

func TestResetAndClose(t *testing.T) {
	h := &history{}
	b := New(0, h.replay, Options{})
	ch := b.Subscribe(t.Context(), engine.WatchOptions{Resource: pipes})
	compacted := engine.Errorf(engine.CodeExpired, "compacted")
	b.Reset(50, compacted)
	if got := receive(t, ch, 1)[0]; got.Type != engine.EventError || !errors.Is(got.Err, compacted) {
		t.Fatalf("after Reset: %+v; want the Reset's error", got)
	}
	if b.ResourceVersion() != 50 {
		t.Errorf("watermark %d after Reset(50)", b.ResourceVersion())
	}
	ch = b.Subscribe(t.Context(), engine.WatchOptions{Resource: pipes, ResourceVersion: 50})
	b.Close()
	if got := receive(t, ch, 1)[0]; got.Type != engine.EventError || engine.ErrorCode(got.Err) != engine.CodeUnavailable {
		t.Fatalf("after Close: %+v; want ServiceUnavailable", got)
	}
	if _, ok := <-b.Subscribe(t.Context(), engine.WatchOptions{}); ok {
		// Subscribe after Close may send its error; the channel must then close.
		if _, ok := <-ch; ok {
			t.Error("channel open after Close")
		}
	}
}

func TestContextEndClosesChannel(t *testing.T) {
	h := &history{}
	b := New(0, h.replay, Options{})
	defer b.Close()
	ctx, cancel := context.WithCancel(t.Context())
	ch := b.Subscribe(ctx, engine.WatchOptions{Resource: pipes})
	cancel()
	for ev := range ch {
		t.Errorf("event after cancel: %+v", ev)
	}
}

func TestExpiredHistory(t *testing.T) {
	h := &history{horizon: 5}
	b := New(10, h.replay, Options{})
	defer b.Close()
	ch := b.Subscribe(t.Context(), engine.WatchOptions{Resource: pipes, ResourceVersion: 3})
	if got := receive(t, ch, 1)[0]; engine.ErrorCode(got.Err) != engine.CodeExpired {
		t.Fatalf("got %+v; want Expired", got)
	}
}

// TestConcurrentPublish has subscribers start at many positions while
// events are published: each must see every event after its start once,
// in order, across the switch from history to the ring.
func TestConcurrentPublish(t *testing.T) {
	h := &history{}
	b := New(0, h.replay, Options{MaxEvents: 300, Buffer: 4})
	defer b.Close()
	const total = 5000
	var wg sync.WaitGroup
	for w := range 20 {
		wg.Go(func() {
			time.Sleep(time.Duration(w) * time.Millisecond)
			from := b.ResourceVersion() - int64(w*40) // below the ring's floor for most
			from = max(from, 0)
			ch := b.Subscribe(t.Context(), engine.WatchOptions{Resource: pipes, ResourceVersion: from})
			next := from + 1
			for next <= total {
				ev := <-ch
				if ev.Type == engine.EventError {
					t.Errorf("subscriber from %d: %v at %d", from, ev.Err, next)
					return
				}
				if ev.Object.ResourceVersion != next {
					t.Errorf("subscriber from %d: got %d; want %d", from, ev.Object.ResourceVersion, next)
					return
				}
				next++
			}
		})
	}
	for rv := int64(1); rv <= total; rv += 5 {
		publish(b, h, rv, rv+1, rv+2, rv+3, rv+4)
		if rv%20 == 1 {
			time.Sleep(time.Millisecond) // a pace the subscribers can follow
		}
	}
	wg.Wait()
}
