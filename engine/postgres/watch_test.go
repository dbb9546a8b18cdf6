package postgres_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/engine/watch"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
	"github.com/dynapi/dynapi/internal/wait"
	"github.com/dynapi/dynapi/migrations"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// openStoreWith opens a Store with opts on the database at databaseURL.
func openStoreWith(tb testing.TB, databaseURL string, opts postgres.Options) *postgres.Store {
	tb.Helper()
	s, err := postgres.OpenWithOptions(context.Background(), databaseURL, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// mustWatch starts a watch that ends with the test.
func mustWatch(t *testing.T, s *postgres.Store, opts engine.WatchOptions) <-chan engine.Event {
	t.Helper()
	ch, err := s.Watch(t.Context(), opts)
	if err != nil {
		t.Fatalf("Watch(%+v): %v", opts, err)
	}
	return ch
}

// receive reads n events, failing after timeout.
func receive(t *testing.T, ch <-chan engine.Event, n int, timeout time.Duration) []engine.Event {
	t.Helper()
	var got []engine.Event
	deadline := time.After(timeout)
	for len(got) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("channel closed after %d of %d events: %s", len(got), n, summary(got))
			}
			got = append(got, ev)
		case <-deadline:
			t.Fatalf("timed out after %d of %d events: %s", len(got), n, summary(got))
		}
	}
	return got
}

// summary renders events as "TYPE name@rv" (or the error).
func summary(events []engine.Event) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.Err != nil {
			fmt.Fprintf(&b, "%s %v; ", ev.Type, ev.Err)
			continue
		}
		fmt.Fprintf(&b, "%s %s@%d; ", ev.Type, ev.Object.Key.Name, ev.Object.ResourceVersion)
	}
	return b.String()
}

// quiet fails if an event other than a bookmark arrives within d.
func quiet(t *testing.T, ch <-chan engine.Event, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev := <-ch:
			if ev.Type != engine.EventBookmark {
				t.Fatalf("unexpected event %s at %d", ev.Type, ev.Object.ResourceVersion)
			}
		case <-deadline:
			return
		}
	}
}

func TestWatchEvents(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	createNamespace(t, s, "other")
	start := mustCreate(t, s, newObject(valves, "default", "v", nil)).ResourceVersion
	all := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: start})
	inDefault := mustWatch(t, s, engine.WatchOptions{Resource: pipes, Namespace: "default", ResourceVersion: start})

	created := mustCreate(t, s, newObject(pipes, "default", "p", map[string]string{"app": "web"}))
	mustCreate(t, s, newObject(pipes, "other", "q", nil))
	mustCreate(t, s, newObject(valves, "default", "w", nil))
	changed, _ := sjson.SetBytes(created.Body, "spec.size", 4)
	updated, err := s.Update(ctx, engine.Object{Key: created.Key, StoredVersion: "v2", ResourceVersion: created.ResourceVersion, Body: changed})
	if err != nil {
		t.Fatal(err)
	}
	deleted, err := s.Delete(ctx, engine.Object{Key: created.Key})
	if err != nil {
		t.Fatal(err)
	}

	got := receive(t, inDefault, 3, 5*time.Second)
	want := []struct {
		typ        engine.EventType
		obj        engine.Object
		prev       []byte
		prevStored string
	}{
		{engine.EventAdded, created, nil, ""},
		{engine.EventModified, updated, created.Body, "v1"},
		{engine.EventDeleted, deleted, updated.Body, "v2"},
	}
	for i, w := range want {
		ev := got[i]
		if ev.Type != w.typ || ev.Object.Key != w.obj.Key || ev.Object.ResourceVersion != w.obj.ResourceVersion ||
			ev.Object.StoredVersion != w.obj.StoredVersion || ev.PrevStoredVersion != w.prevStored {
			t.Errorf("event %d = %s %+v rv %d stored %q prev stored %q; want %s %+v rv %d stored %q prev stored %q", i,
				ev.Type, ev.Object.Key, ev.Object.ResourceVersion, ev.Object.StoredVersion, ev.PrevStoredVersion,
				w.typ, w.obj.Key, w.obj.ResourceVersion, w.obj.StoredVersion, w.prevStored)
		}
		if !jsoneq.Equal(ev.Object.Body, w.obj.Body) || (w.prev == nil) != (ev.Prev == nil) || (w.prev != nil && !jsoneq.Equal(ev.Prev, w.prev)) {
			t.Errorf("event %d bodies = %s, prev %s; want %s, prev %s", i, ev.Object.Body, ev.Prev, w.obj.Body, w.prev)
		}
		if gjson.GetBytes(ev.Object.Body, "@keys.0").String() != "apiVersion" {
			t.Errorf("event %d body not as Get returns it (apiVersion first): %s", i, ev.Object.Body)
		}
	}
	if bodyRV(got[2].Object.Body) != strconv.FormatInt(deleted.ResourceVersion, 10) {
		t.Errorf("DELETED body at rv %s; want the delete's %d", bodyRV(got[2].Object.Body), deleted.ResourceVersion)
	}
	got = receive(t, all, 4, 5*time.Second)
	if got[1].Object.Key.Name != "q" || got[1].Type != engine.EventAdded {
		t.Errorf("watch of every namespace: second event %s %v; want ADDED other/q", got[1].Type, got[1].Object.Key)
	}
	quiet(t, inDefault, 100*time.Millisecond)
}

// TestWatchFromHistory starts a watch from a resourceVersion older than
// the process keeps in memory: it is served from the log, then live, with
// no gap and no duplicate.
func TestWatchFromHistory(t *testing.T) {
	s := openStoreWith(t, pgtest.Open(t), postgres.Options{Watch: watch.Options{MaxEvents: 20}})
	createNamespace(t, s, "default")
	var rvs []int64
	for i := range 30 {
		rvs = append(rvs, mustCreate(t, s, newObject(pipes, "default", "p"+strconv.Itoa(i), nil)).ResourceVersion)
	}
	waitWatermark(t, s, rvs[len(rvs)-1])
	ch := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: rvs[2]})
	go func() {
		for i := 30; i < 40; i++ {
			mustCreate(t, s, newObject(pipes, "default", "p"+strconv.Itoa(i), nil))
		}
	}()
	got := receive(t, ch, 37, 10*time.Second)
	for i, ev := range got {
		if want := "p" + strconv.Itoa(i+3); ev.Object.Key.Name != want || ev.Type != engine.EventAdded {
			t.Fatalf("event %d = %s %s; want ADDED %s", i, ev.Type, ev.Object.Key.Name, want)
		}
	}
	quiet(t, ch, 100*time.Millisecond)
}

// waitWatermark waits until the store has published every resourceVersion
// up to rv, so that a watch or a list from rv starts without waiting. Not
// through a Watch, which starts once its own wait is over whether or not W
// got there: on a loaded machine a list then found the poller not started
// yet (TestListResourceVersionMatch failed once in CI so).
func waitWatermark(t *testing.T, s *postgres.Store, rv int64) {
	t.Helper()
	wait.Eventually(t, 30*time.Second, func() (bool, string) {
		w, started := postgres.Watermark(s)
		return started && w >= rv, fmt.Sprintf("watermark %d (poller started: %v), want %d", w, started, rv)
	})
}

func TestWatchSlowSubscriberDropped(t *testing.T) {
	s := openStoreWith(t, pgtest.Open(t), postgres.Options{Watch: watch.Options{MaxEvents: 10, Buffer: 1}})
	createNamespace(t, s, "default")
	first := mustCreate(t, s, newObject(pipes, "default", "p0", nil)).ResourceVersion
	ch := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: first})
	// Live first: a subscriber that starts behind the ring catches up from
	// the log (on a loaded machine the 40 writes can all land before its
	// first read); only a live one that falls behind is dropped.
	next := mustCreate(t, s, newObject(pipes, "default", "live", nil)).ResourceVersion
	if ev := <-ch; ev.Object.ResourceVersion != next {
		t.Fatalf("first event at %d; want %d", ev.Object.ResourceVersion, next)
	}
	next++
	for i := 1; i <= 40; i++ {
		mustCreate(t, s, newObject(pipes, "default", "p"+strconv.Itoa(i), nil))
	}
	for ev := range ch {
		if ev.Type == engine.EventError {
			if engine.ErrorCode(ev.Err) != engine.CodeGone {
				t.Fatalf("error %v; want Gone", ev.Err)
			}
			if _, open := <-ch; open {
				t.Fatal("channel open after the error")
			}
			return
		}
		if ev.Object.ResourceVersion != next {
			t.Fatalf("event at %d; want %d", ev.Object.ResourceVersion, next)
		}
		next++
	}
	t.Fatal("channel closed without an error")
}

func TestWatchBookmarks(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	ch := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ProgressInterval: 50 * time.Millisecond})
	last := mustCreate(t, s, newObject(valves, "default", "v", nil)).ResourceVersion
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-ch:
			if ev.Type != engine.EventBookmark || ev.Object.Key.Resource != pipes {
				t.Fatalf("got %s %v; want only bookmarks of pipes", ev.Type, ev.Object.Key)
			}
			if ev.Object.ResourceVersion >= last {
				return // the valve's write is covered though the watch saw nothing of it
			}
		case <-deadline:
			t.Fatalf("no bookmark at or after %d", last)
		}
	}
}

func TestWatchErrors(t *testing.T) {
	url := pgtest.Open(t)
	s := openStoreWith(t, url, postgres.Options{Retention: time.Millisecond})
	postgres.SetFreshWait(s, 100*time.Millisecond)
	createNamespace(t, s, "default")
	old := mustCreate(t, s, newObject(pipes, "default", "a", nil)).ResourceVersion
	cur := mustCreate(t, s, newObject(pipes, "default", "b", nil)).ResourceVersion
	waitWatermark(t, s, cur)
	if err := postgres.Compact(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		rv      int64
		code    engine.Code
		message string
	}{
		{"compacted", old, engine.CodeExpired, "too old resource version: " + strconv.FormatInt(old, 10) + " (" + strconv.FormatInt(cur, 10) + ")"},
		{"future", cur + 100, engine.CodeTimeout, "Timeout: Too large resource version: " + strconv.FormatInt(cur+100, 10) + ", current: " + strconv.FormatInt(cur, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Watch(t.Context(), engine.WatchOptions{Resource: pipes, ResourceVersion: tt.rv})
			if e := wantCode(t, err, tt.code); e.Message != tt.message {
				t.Errorf("message %q; want %q", e.Message, tt.message)
			}
		})
	}
	// The horizon itself can still be watched, from any process.
	other := openStore(t, url)
	ch := mustWatch(t, other, engine.WatchOptions{Resource: pipes, ResourceVersion: cur})
	mustCreate(t, s, newObject(pipes, "default", "c", nil))
	if ev := receive(t, ch, 1, 5*time.Second)[0]; ev.Object.Key.Name != "c" {
		t.Errorf("after the horizon: %s %v; want c", ev.Type, ev.Object.Key)
	}
}

// TestWatchOtherProcess checks that a write through one Store wakes the
// watchers of another at once (NOTIFY), not at the next safety poll.
func TestWatchOtherProcess(t *testing.T) {
	url := pgtest.Open(t)
	writer, reader := openStore(t, url), openStore(t, url)
	createNamespace(t, writer, "default")
	waitWatermark(t, reader, 0)
	for i := range 5 {
		start := time.Now()
		rv := mustCreate(t, writer, newObject(pipes, "default", "p"+strconv.Itoa(i), nil)).ResourceVersion
		ch := mustWatch(t, reader, engine.WatchOptions{Resource: pipes, ResourceVersion: rv - 1})
		receive(t, ch, 1, 5*time.Second)
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("write %d reached the other process after %v", i, d)
		}
	}
}

// TestOpenBeforeMigrate checks the order cmd/dynapi uses: the Store waits
// for the schema, then serves.
func TestOpenBeforeMigrate(t *testing.T) {
	s := openStore(t, pgtest.OpenEmpty(t))
	if err := s.Migrate(context.Background(), migrations.FS); err != nil {
		t.Fatal(err)
	}
	createNamespace(t, s, "default")
	ch := mustWatch(t, s, engine.WatchOptions{Resource: pipes})
	mustCreate(t, s, newObject(pipes, "default", "p", nil))
	if ev := receive(t, ch, 1, 5*time.Second)[0]; ev.Object.Key.Name != "p" {
		t.Errorf("got %v", ev.Object.Key)
	}
}

// TestStartResolvesGaps opens a Store while a write holds a
// resourceVersion in flight and another resourceVersion was taken and
// never used: the new Store waits for the first, skips the second, and
// serves the log in order.
func TestStartResolvesGaps(t *testing.T) {
	url := pgtest.Open(t)
	writer := openStore(t, url)
	createNamespace(t, writer, "default")
	postgres.SetBeforeCommit(writer, beforeCommit)
	release := make(chan struct{})
	held := make(chan engine.Object, 1)
	go func() {
		ctx := context.WithValue(context.Background(), hookKey{}, hookAction{wait: release})
		obj, err := writer.Create(ctx, newObject(pipes, "default", "held", nil))
		if err != nil {
			t.Error(err)
		}
		held <- obj
	}()
	time.Sleep(100 * time.Millisecond)
	execSQL(t, url, "SELECT nextval('resource_version')") // a write that rolled back
	last := mustCreate(t, writer, newObject(pipes, "default", "last", nil))

	reader := openStore(t, url)
	go func() { time.Sleep(200 * time.Millisecond); close(release) }()
	ch := mustWatch(t, reader, engine.WatchOptions{Resource: pipes, ResourceVersion: last.ResourceVersion - 3})
	got := receive(t, ch, 2, 5*time.Second)
	h := <-held
	if got[0].Object.ResourceVersion != h.ResourceVersion || got[1].Object.ResourceVersion != last.ResourceVersion {
		t.Errorf("got %s; want held@%d, last@%d", summary(got), h.ResourceVersion, last.ResourceVersion)
	}
}

// TestWriteRetriesAfterGap has writes collide with GAPs that a poller
// wrote in their resourceVersions (it won the race between their nextval
// and their insert): each write is retried with a new resourceVersion,
// and watchers see it once.
func TestWriteRetriesAfterGap(t *testing.T) {
	url := pgtest.Open(t)
	s := openStore(t, url)
	createNamespace(t, s, "default")
	before := mustCreate(t, s, newObject(pipes, "default", "a", nil))
	ch := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: before.ResourceVersion})
	next := before.ResourceVersion + 1
	execSQL(t, url, "INSERT INTO events (resource_version, type) VALUES ("+strconv.FormatInt(next, 10)+", 'GAP'), ("+
		strconv.FormatInt(next+1, 10)+", 'GAP')")
	created := mustCreate(t, s, newObject(pipes, "default", "b", nil))
	if created.ResourceVersion != next+2 {
		t.Errorf("rv %d; want %d, after the two GAPs", created.ResourceVersion, next+2)
	}
	if got := receive(t, ch, 1, 5*time.Second); got[0].Object.ResourceVersion != created.ResourceVersion {
		t.Errorf("got %s; want b@%d", summary(got), created.ResourceVersion)
	}
	quiet(t, ch, 100*time.Millisecond)
}
