package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"
)

// watchGrace is how long watchers may lag behind the last write before the
// events they lack count as errors.
const watchGrace = 10 * time.Second

// seqAnnotation marks each watch-phase write with its number, so that a
// watcher knows which write an event is.
const seqAnnotation = "dynapi-bench-seq"

// watch merge-patches objects from the clients, through server A, while a
// watcher on A and one on B time each write from its sending to its event.
func (b *bench) watch(ctx context.Context) {
	n, c, writes := b.cfg.Objects, b.cfg.Clients, b.cfg.WatchWrites
	fmt.Fprintf(b.progress, "watch: %d writes with %d clients through A, watched on %d server(s)\n", writes, c, min(2, len(b.clients)))
	rv, err := b.currentRV(ctx)
	if err != nil {
		b.add("watch", c, measurement{Ops: writes, Errors: 1, FirstErr: err}, nil)
		return
	}
	clock := &writeClock{start: time.Now(), sent: make([]atomic.Int64, writes)}
	var watchers []*watcher
	for _, cl := range b.clients[:min(2, len(b.clients))] {
		wt, err := openWatch(ctx, cl, b.widgets.collection(), rv, clock)
		if err != nil {
			b.add("watch", c, measurement{Ops: writes, Errors: 1, FirstErr: err}, nil)
			return
		}
		defer wt.close()
		watchers = append(watchers, wt)
	}
	patches := b.measure(ctx, c, writes, timed(func(ctx context.Context, k int) error {
		clock.send(k)
		patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"%d"}}}`, seqAnnotation, k)
		_, err := b.load().do(ctx, http.MethodPatch, b.widgets.path(k%n), "application/merge-patch+json", patch, http.StatusOK)
		return err
	}))
	b.add("patch (watch writes)", c, patches, nil)
	for i, wt := range watchers {
		b.add("watch A→"+serverName(i), c, wt.wait(patches), nil)
	}
}

// currentRV reads the resourceVersion of the namespace's widgets list.
func (b *bench) currentRV(ctx context.Context) (string, error) {
	out, err := b.load().get(ctx, b.widgets.collection()+"?limit=1")
	if err != nil {
		return "", err
	}
	return gjson.GetBytes(out, "metadata.resourceVersion").String(), nil
}

// writeClock records when each write was sent, on the monotonic clock.
type writeClock struct {
	start time.Time
	sent  []atomic.Int64 // nanoseconds since start
}

func (c *writeClock) send(k int) { c.sent[k].Store(int64(time.Since(c.start))) }

// since is how long ago write k was sent.
func (c *writeClock) since(k int) time.Duration {
	return time.Since(c.start) - time.Duration(c.sent[k].Load())
}

// watcher reads one watch stream and times the events of the writes.
type watcher struct {
	cancel context.CancelFunc
	clock  *writeClock
	seen   []bool
	count  int
	rec    recorder
	done   chan struct{} // closed when every write was seen or the stream ended
}

// openWatch starts watching collection from resourceVersion rv.
func openWatch(ctx context.Context, cl client, collection, rv string, clock *writeClock) (*watcher, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		cl.base+collection+"?watch=true&resourceVersion="+rv+"&timeoutSeconds=600", nil)
	if err != nil {
		cancel()
		return nil, err
	}
	if cl.token != "" {
		req.Header.Set("Authorization", "Bearer "+cl.token)
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("watch %s: %s", cl.base, resp.Status)
	}
	w := &watcher{cancel: cancel, clock: clock, seen: make([]bool, len(clock.sent)), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer resp.Body.Close()
		w.read(bufio.NewScanner(resp.Body))
	}()
	return w, nil
}

// read consumes events until every write has been seen or the stream ends.
func (w *watcher) read(sc *bufio.Scanner) {
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for w.count < len(w.seen) && sc.Scan() {
		ev := gjson.ParseBytes(sc.Bytes())
		switch ev.Get("type").Str {
		case "MODIFIED":
			w.event(ev.Get("object.metadata.annotations." + gjson.Escape(seqAnnotation)))
		case "ERROR":
			w.rec.fail(1, fmt.Errorf("watch ERROR event: %s", ev.Get("object.message").Str))
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, context.Canceled) {
		w.rec.fail(1, fmt.Errorf("read watch: %w", err))
	}
}

// event times the write whose number seq carries.
func (w *watcher) event(seq gjson.Result) {
	k, err := strconv.Atoi(seq.Str)
	switch {
	case !seq.Exists():
		return // a write of another phase
	case err != nil || k < 0 || k >= len(w.seen):
		w.rec.fail(1, fmt.Errorf("watch: event of an unknown write %q", seq.Str))
	case w.seen[k]:
		w.rec.fail(1, fmt.Errorf("watch: second event of write %d", k))
	default:
		w.seen[k] = true
		w.count++
		w.rec.add([]time.Duration{w.clock.since(k)}, nil)
	}
}

// wait gives the watcher watchGrace to see the last writes, then ends it
// and returns its measurement; a write never seen is an error.
func (w *watcher) wait(writes measurement) measurement {
	select {
	case <-w.done:
	case <-time.After(watchGrace):
		w.cancel()
		<-w.done
	}
	if missing := len(w.seen) - w.count; missing > 0 {
		first := slices.Index(w.seen, false)
		w.rec.fail(missing, fmt.Errorf("watch: %d write(s) never seen, the first #%d", missing, first))
	}
	return w.rec.result(len(w.seen), writes.Elapsed)
}

// close ends the watch.
func (w *watcher) close() {
	w.cancel()
	<-w.done
}
