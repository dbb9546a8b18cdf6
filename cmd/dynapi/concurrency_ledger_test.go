package main

// The ledger of TestConcurrentWritersTwoProcesses: the writes the processes
// acknowledged, the state they make at any resourceVersion, and the
// paginated lists checked against that state.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
)

// change is one change to one object: an acknowledged write or a watch
// event. marker tells which write made the state it carries.
type change struct {
	rv     int64
	typ    string // ADDED, MODIFIED, DELETED
	name   string
	marker string
}

func (ch change) String() string {
	return fmt.Sprintf("%s %s at %d (marker %s)", ch.typ, ch.name, ch.rv, ch.marker)
}

// write is an acknowledged write; for a delete, marker and gold are those
// of the last state, which the answer carries.
type write struct {
	change
	kind string
	gold bool
}

// ledger records the acknowledged writes by resourceVersion, and the
// markers of refused ones.
type ledger struct {
	mu      sync.Mutex
	writes  map[int64]write
	refused map[string]int // marker → status code
}

// acknowledge records a write from its answer.
func (l *ledger) acknowledge(typ, kind string, answer []byte) error {
	rv, err := rvOf(answer)
	if err != nil {
		return fmt.Errorf("%s answer: %w: %s", typ, err, answer)
	}
	w := write{change{rv, typ, gjson.GetBytes(answer, "metadata.name").Str, markerOf(kind, answer)}, kind, isGold(answer)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if prev, dup := l.writes[rv]; dup {
		return fmt.Errorf("resourceVersion %d acknowledged twice: %v and %v", rv, prev, w)
	}
	l.writes[rv] = w
	return nil
}

func (l *ledger) refuse(marker string, code int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused[marker] = code
}

func (l *ledger) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.writes)
}

// of returns the acknowledged writes of kind in resourceVersion order.
func (l *ledger) of(kind string) []write {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []write
	for _, w := range l.writes {
		if w.kind == kind {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b write) int { return int(a.rv - b.rv) })
	return out
}

// stateAt replays the writes of kind up to rv: name → resourceVersion.
func (l *ledger) stateAt(kind string, rv int64) map[string]int64 {
	state := map[string]int64{}
	for _, w := range l.of(kind) {
		switch {
		case w.rv > rv:
			return state
		case w.typ == "DELETED":
			delete(state, w.name)
		default:
			state[w.name] = w.rv
		}
	}
	return state
}

// report logs the figures of the run.
func (l *ledger) report(t *testing.T, watches []*watch, lists *listLog) {
	t.Helper()
	counts := map[string]int{}
	for _, w := range l.writes {
		counts[w.kind+" "+w.typ]++
	}
	t.Logf("%d acknowledged writes %v, %d refused (409)", len(l.writes), counts, len(l.refused))
	for _, w := range watches {
		t.Logf("watch %q from %d: %d events, %d bookmarks, %d initial objects", w.name, w.from, len(w.events), w.bookmarks, len(w.initialState))
	}
	pages := 0
	for _, r := range lists.done {
		pages += r.pages
	}
	t.Logf("%d paginated lists of %d, %d pages", len(lists.done), pageLimit, pages)
}

// diffState describes how a state (name → resourceVersion) differs from
// the one wanted, or returns "".
func diffState(got, want map[string]int64) string {
	var d []string
	for name, rv := range want {
		if got[name] != rv {
			d = append(d, fmt.Sprintf("%s at %d, want %d", name, got[name], rv))
		}
	}
	for name, rv := range got {
		if _, ok := want[name]; !ok {
			d = append(d, fmt.Sprintf("%s at %d, want none", name, rv))
		}
	}
	if len(d) == 0 {
		return ""
	}
	slices.Sort(d)
	return fmt.Sprintf("%d of %d objects differ (0: absent): %s", len(d), len(want), firstTen(d))
}

// listResult is the state one paginated list showed.
type listResult struct {
	rv    int64
	pages int
	state map[string]int64 // name → resourceVersion
}

// listLog collects paginated lists.
type listLog struct {
	mu   sync.Mutex
	done []listResult
}

func (l *listLog) add(r listResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = append(l.done, r)
}

// whileWriting lists widgets in pages until done is closed, the first
// page of each list from process first, then alternately.
func (l *listLog) whileWriting(ctx context.Context, t *testing.T, c *cluster, first int, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
		r, err := c.listPages(ctx, first)
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("paginated list: %v", err)
			}
			return
		}
		l.add(r)
	}
}

// check compares each list with the state the writes made at its
// resourceVersion.
func (l *listLog) check(t *testing.T, led *ledger) {
	t.Helper()
	for _, r := range l.done {
		if d := diffState(r.state, led.stateAt(widgets, r.rv)); d != "" {
			t.Errorf("paginated list at %d (%d pages): %s", r.rv, r.pages, d)
		}
	}
}

// listPages lists the widgets in pages of pageLimit, following continue
// tokens, each page from the other process than the one before; every
// page must be at the first's resourceVersion.
func (c *cluster) listPages(ctx context.Context, first int) (listResult, error) {
	r := listResult{state: map[string]int64{}}
	q := url.Values{"limit": {strconv.Itoa(pageLimit)}}
	for page := 1; ; page++ {
		p := c.procs[(first+page-1)%2]
		code, out, err := c.do(ctx, http.MethodGet, p.url+c.path(widgets, "v1")+"?"+q.Encode(), "", nil)
		if err != nil {
			return r, err
		}
		if code != http.StatusOK {
			return r, fmt.Errorf("page %d from %s = %d: %s", page, p.name, code, out)
		}
		rv, err := rvOf(out)
		switch {
		case err != nil:
			return r, fmt.Errorf("page %d from %s: %w", page, p.name, err)
		case page == 1:
			r.rv = rv
		case rv != r.rv:
			return r, fmt.Errorf("page %d from %s at resourceVersion %d, the first at %d: a list mixing states", page, p.name, rv, r.rv)
		}
		items := gjson.GetBytes(out, "items").Array()
		if len(items) > pageLimit {
			return r, fmt.Errorf("page %d from %s has %d items, more than the limit", page, p.name, len(items))
		}
		for _, it := range items {
			name := it.Get("metadata.name").Str
			if _, dup := r.state[name]; dup {
				return r, fmt.Errorf("page %d from %s repeats %s", page, p.name, name)
			}
			if r.state[name], err = parseRV(it.Get("metadata.resourceVersion")); err != nil {
				return r, fmt.Errorf("page %d from %s: %s: %w", page, p.name, name, err)
			}
		}
		r.pages++
		token := gjson.GetBytes(out, "metadata.continue").Str
		if token == "" {
			return r, nil
		}
		q.Set("continue", token)
	}
}
