package main

// The watchers of TestConcurrentWritersTwoProcesses: how they start, what
// they record of their streams, the changes each must see according to the
// ledger, and the comparison of the two.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/internal/wait"
)

// watchSpec says what one watcher watches.
type watchSpec struct {
	name    string
	proc    int // in cluster.procs
	kind    string
	version string // that events come in
	gold    bool   // labelSelector=tier=gold
	initial bool   // the watch-list protocol: the state first, then changes
}

// watch is one running watch and what it saw.
type watch struct {
	watchSpec
	apiVersion string
	started    chan struct{} // closed when from is known
	ended      chan struct{} // closed when the stream has ended

	mu           sync.Mutex
	from         int64            // the changes after it are expected
	live         bool             // past the initial state
	initialState map[string]int64 // name → resourceVersion of the initial ADDED events
	events       []change
	bookmarks    int
	lastBookmark int64
	lastRV       int64 // of the last event or bookmark
	problems     []string
}

// startEarly starts the watches that begin before any write, each from a
// list through the other process.
func (c *cluster) startEarly(ctx context.Context, t *testing.T, reading *sync.WaitGroup) []*watch {
	t.Helper()
	var watches []*watch
	for _, s := range []watchSpec{
		{name: "widgets on A", proc: 0, kind: widgets, version: "v1"},
		{name: "widgets on B", proc: 1, kind: widgets, version: "v1"},
		{name: "gold widgets on B (label selector)", proc: 1, kind: widgets, version: "v1", gold: true},
		{name: "pipes in v3 on B", proc: 1, kind: pipes, version: "v3"},
		{name: "pipes in v1 on A", proc: 0, kind: pipes, version: "v1"},
	} {
		watches = append(watches, c.startWatch(ctx, t, s, c.listRV(t, 1-s.proc, s.kind), reading))
	}
	return watches
}

// listRV is the resourceVersion of the newest state of kind, through proc.
func (c *cluster) listRV(t *testing.T, proc int, kind string) int64 {
	t.Helper()
	version := "v1"
	if kind == pipes {
		version = "v2"
	}
	out := mustDo(t, http.StatusOK, http.MethodGet, c.procs[proc].url+c.path(kind, version)+"?limit=1", "")
	rv, err := rvOf([]byte(out))
	if err != nil {
		t.Fatalf("list %s: %v: %s", kind, err, out)
	}
	return rv
}

// startMidRun waits until a quarter of the writes are acknowledged, then
// starts a watch on B from a paginated list read through A, as informers
// do, and a watch-list (sendInitialEvents) on A, whose initial state is
// checked as well.
func (c *cluster) startMidRun(ctx context.Context, t *testing.T, led *ledger, reading *sync.WaitGroup) []*watch {
	t.Helper()
	wait.Until(settleTimeout, func() bool { return led.len() >= concurrentWriters*opsPerWriter/4 })
	r, err := c.listPages(ctx, 0)
	if err != nil {
		t.Fatalf("paginated list mid-run: %v", err)
	}
	fromList := c.startWatch(ctx, t, watchSpec{name: "widgets on B from a paginated list mid-run", proc: 1, kind: widgets, version: "v1"}, r.rv, reading)
	initial := c.startWatch(ctx, t, watchSpec{name: "widgets on A, watch-list mid-run", proc: 0, kind: widgets, version: "v1", initial: true}, 0, reading)
	select {
	case <-initial.started:
	case <-initial.ended:
		t.Fatalf("watch-list ended before its initial events: %v", initial.problems)
	case <-time.After(settleTimeout):
		t.Fatalf("watch-list: no initial-events-end bookmark within %s", settleTimeout)
	}
	return []*watch{fromList, initial}
}

// startWatch starts a watch from resourceVersion from (for the watch-list
// protocol, from the initial-events-end bookmark) with bookmarks.
func (c *cluster) startWatch(ctx context.Context, t *testing.T, s watchSpec, from int64, reading *sync.WaitGroup) *watch {
	t.Helper()
	w := &watch{watchSpec: s, apiVersion: apiVersion(s.kind, s.version), from: from, live: !s.initial, lastRV: from,
		initialState: map[string]int64{}, started: make(chan struct{}), ended: make(chan struct{})}
	q := url.Values{"watch": {"true"}, "allowWatchBookmarks": {"true"}}
	if s.initial {
		q.Set("sendInitialEvents", "true")
		q.Set("resourceVersionMatch", "NotOlderThan")
	} else {
		q.Set("resourceVersion", strconv.FormatInt(from, 10))
		close(w.started)
	}
	if s.gold {
		q.Set("labelSelector", "tier=gold")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.procs[s.proc].url+c.path(s.kind, s.version)+"?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		t.Fatalf("watch %q: %v", s.name, err)
	}
	if resp.StatusCode != http.StatusOK {
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("watch %q = %d: %s", s.name, resp.StatusCode, out)
	}
	reading.Go(func() { w.read(ctx, resp.Body) })
	return w
}

// read reads the stream, one JSON event a line, until it ends.
func (w *watch) read(ctx context.Context, body io.ReadCloser) {
	defer close(w.ended)
	defer body.Close()
	lines := bufio.NewScanner(body)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		w.handle(lines.Bytes())
	}
	if ctx.Err() == nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.problemLocked("the stream ended early: %v", lines.Err())
	}
}

// problemLocked records a problem, reported when the watch is checked.
func (w *watch) problemLocked(format string, args ...any) {
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

// handle records one line of the stream.
func (w *watch) handle(line []byte) {
	var ev struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	err := json.Unmarshal(line, &ev)
	w.mu.Lock()
	defer w.mu.Unlock()
	var rv int64
	if err == nil {
		rv, err = rvOf(ev.Object)
	}
	ch := change{rv, ev.Type, gjson.GetBytes(ev.Object, "metadata.name").Str, markerOf(w.kind, ev.Object)}
	switch {
	case ev.Type == "ERROR" || err != nil:
		w.problemLocked("bad event (%v): %s", err, line)
	case ev.Type == "BOOKMARK":
		w.bookmarkLocked(rv, ev.Object)
	case gjson.GetBytes(ev.Object, "apiVersion").Str != w.apiVersion:
		w.problemLocked("%v in %s, want %s", ch, gjson.GetBytes(ev.Object, "apiVersion").Str, w.apiVersion)
	case !w.live && ev.Type != "ADDED":
		w.problemLocked("%v among the initial events", ch)
	case !w.live:
		w.initialState[ch.name] = rv
	default:
		if rv <= w.lastBookmark {
			w.problemLocked("%v after a bookmark at %d", ch, w.lastBookmark)
		}
		w.events = append(w.events, ch)
		w.lastRV = max(w.lastRV, rv)
	}
}

// bookmarkLocked takes a BOOKMARK: the end of the initial events, or a
// promise that every event up to rv was sent.
func (w *watch) bookmarkLocked(rv int64, obj []byte) {
	if !w.live {
		if gjson.GetBytes(obj, "metadata.annotations."+gjson.Escape("k8s.io/initial-events-end")).Str != "true" {
			w.problemLocked("bookmark at %d before the initial-events-end one: %s", rv, obj)
			return
		}
		w.from, w.lastRV, w.live = rv, rv, true
		close(w.started)
		return
	}
	if rv < w.lastRV {
		w.problemLocked("bookmark at %d after resourceVersion %d", rv, w.lastRV)
	}
	w.bookmarks++
	w.lastBookmark, w.lastRV = rv, max(w.lastRV, rv)
}

// expected returns the changes this watch must see, from the acknowledged
// writes: with the selector, an object that starts matching is ADDED and
// one that stops matching DELETED (in its last matching state).
func (w *watch) expected(l *ledger) []change {
	var want []change
	last := map[string]write{} // the state of each existing object
	for _, wr := range l.of(w.kind) {
		ch, ok := wr.change, true
		if w.gold {
			ch, ok = goldChange(wr, last)
		}
		if wr.typ == "DELETED" {
			delete(last, wr.name)
		} else {
			last[wr.name] = wr
		}
		if ok && wr.rv > w.from {
			want = append(want, ch)
		}
	}
	return want
}

// goldChange is what a watch of gold objects sees of wr, given the state
// of each object before it.
func goldChange(wr write, last map[string]write) (change, bool) {
	prev, existed := last[wr.name]
	now, was := wr.typ != "DELETED" && wr.gold, existed && prev.gold
	ch := wr.change
	switch {
	case now && was:
		ch.typ = "MODIFIED"
	case now:
		ch.typ = "ADDED"
	case was:
		ch.typ, ch.marker = "DELETED", prev.marker
	default:
		return ch, false
	}
	return ch, true
}

// waitForWatches waits until every watch has seen the last change it
// expects, or settleTimeout has passed.
func waitForWatches(t *testing.T, watches []*watch, wants [][]change) {
	t.Helper()
	deadline := time.Now().Add(settleTimeout)
	for i, w := range watches {
		if len(wants[i]) == 0 {
			t.Errorf("watch %q: no change expected; the test writes too little", w.name)
			continue
		}
		last := wants[i][len(wants[i])-1].rv
		wait.Until(time.Until(deadline), func() bool { return w.reached() >= last || w.hasEnded() })
		if w.reached() >= last {
			continue
		}
		w.mu.Lock()
		missing, _ := diffChanges(w.events, wants[i])
		t.Errorf("watch %q (from %d): saw up to resourceVersion %d, not %d, within %s; %d changes missing: %s",
			w.name, w.from, w.lastRV, last, settleTimeout, len(missing), firstTen(missing))
		w.mu.Unlock()
	}
}

// hasEnded reports whether w's stream has ended.
func (w *watch) hasEnded() bool {
	select {
	case <-w.ended:
		return true
	default:
		return false
	}
}

func (w *watch) reached() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastRV
}

// check compares what w saw with what it had to see; the stream has ended.
func (w *watch) check(t *testing.T, l *ledger, want []change) {
	t.Helper()
	for _, p := range w.problems {
		t.Errorf("watch %q: %s", w.name, p)
	}
	if w.initial {
		if d := diffState(w.initialState, l.stateAt(w.kind, w.from)); d != "" {
			t.Errorf("watch %q: initial state at %d: %s", w.name, w.from, d)
		}
	}
	last := w.from
	for _, ev := range w.events {
		if ev.rv <= last {
			t.Errorf("watch %q: %v after resourceVersion %d: reordered or duplicated", w.name, ev, last)
		}
		last = max(last, ev.rv)
	}
	missing, unexpected := diffChanges(w.events, want)
	if len(missing) > 0 {
		t.Errorf("watch %q (from %d): %d acknowledged changes missed: %s", w.name, w.from, len(missing), firstTen(missing))
	}
	for _, ch := range unexpected[:min(len(unexpected), 10)] {
		why := "no such acknowledged write"
		if code, ok := l.refused[ch.marker]; ok {
			why = fmt.Sprintf("the write with this marker was refused with %d", code)
		}
		t.Errorf("watch %q (from %d): unexpected %v: %s (%d unexpected in all)", w.name, w.from, ch, why, len(unexpected))
	}
}

// diffChanges returns the changes of want that got lacks and those of got
// that want lacks, counting duplicates.
func diffChanges(got, want []change) (missing, unexpected []change) {
	count := map[change]int{}
	for _, ch := range want {
		count[ch]++
	}
	for _, ch := range got {
		if count[ch] > 0 {
			count[ch]--
		} else {
			unexpected = append(unexpected, ch)
		}
	}
	for _, ch := range want {
		if count[ch] > 0 {
			count[ch]--
			missing = append(missing, ch)
		}
	}
	return missing, unexpected
}

// firstTen prints the first ten items, for failure messages.
func firstTen[T any](items []T) string {
	s := fmt.Sprint(items[:min(len(items), 10)])
	if len(items) > 10 {
		s += " ..."
	}
	return s
}
