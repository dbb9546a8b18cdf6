package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/pgserver"
	"github.com/dynapi/dynapi/internal/wait"
	"github.com/tidwall/gjson"
)

// outageLength is how long the database stays stopped: 30 s, as issue 22
// asks, longer than any client's retry or the pool's connect timeout, so
// the outage is seen by every path (writes, the watch's poll, NOTIFY).
const outageLength = 30 * time.Second

// PostgreSQL restarted (fast, then immediate) and then stopped for a while
// under a write load: no acknowledged write is lost; every refused write
// is 503 with Retry-After, never 500; a watch opened during the outage is
// answered 503, and one open before it ends with an ERROR that is not 500
// (or goes on) and can be resumed to see every acknowledged write.
func TestDatabaseOutageUnderWrites(t *testing.T) {
	pg, err := pgserver.Start(context.Background(), pgserver.Options{Ephemeral: true, Durable: true})
	if err != nil {
		t.Fatalf("start PostgreSQL: %v", err)
	}
	t.Cleanup(func() { _ = pg.Stop() })
	p := startProcess(t, "A", pg.URL())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	from := listRVOf(t, p.url)
	_, _, before := openWatch(t.Context(), t, p.url, from) // outlives the writers
	load := newWriteLoad(p.url)
	load.start(ctx, "outage")
	wait.Sleep(ctx, 500*time.Millisecond)
	for _, immediate := range []bool{false, true} {
		if err := pg.Halt(immediate); err != nil {
			t.Fatalf("halt PostgreSQL (immediate %v): %v", immediate, err)
		}
		wait.Sleep(ctx, 200*time.Millisecond)
		resume(t, pg, p)
		wait.Sleep(ctx, 500*time.Millisecond)
	}
	if err := pg.Halt(false); err != nil {
		t.Fatalf("halt PostgreSQL: %v", err)
	}
	wait.Sleep(ctx, 100*time.Millisecond)
	checkWatchInOutage(t, ctx, p.url, from)
	wait.Sleep(ctx, outageLength)
	resume(t, pg, p)
	wait.Sleep(ctx, 500*time.Millisecond)
	cancel()
	load.wait()
	load.check(t, p.url)
	followWatch(t, p.url, before, load.ackedAfter(from))
}

// checkWatchInOutage opens a watch while the database is down: it must be
// answered 503 with Retry-After, or (the stream has started before the
// storage is asked, as for a resourceVersion too old) end with one ERROR
// event holding a 503 Status, which client-go retries.
func checkWatchInOutage(t *testing.T, ctx context.Context, base string, from int64) {
	t.Helper()
	code, answer, w := openWatch(ctx, t, base, from)
	if w == nil {
		if code != http.StatusServiceUnavailable || !strings.HasPrefix(answer, "1 ") {
			t.Errorf("a watch opened during the outage = %d, %s; want 503 with Retry-After 1", code, answer)
		}
		return
	}
	<-w.ended
	if len(w.errors) != 1 || gjson.Get(w.errors[0], "object.code").Int() != 503 ||
		gjson.Get(w.errors[0], "object.details.retryAfterSeconds").Int() != 1 {
		t.Errorf("a watch opened during the outage ended with %v, want one ERROR event with a 503 Status", w.errors)
	}
}

// resume starts PostgreSQL again and waits until dynapi is ready.
func resume(t *testing.T, pg *pgserver.Server, p *process) {
	t.Helper()
	if err := pg.Resume(context.Background()); err != nil {
		t.Fatalf("resume PostgreSQL: %v", err)
	}
	p.waitReady(t)
}

// listRVOf is the resourceVersion of a list of the ConfigMaps.
func listRVOf(t *testing.T, base string) int64 {
	t.Helper()
	rv, err := parseRV(gjson.Get(mustDo(t, http.StatusOK, http.MethodGet, base+configMaps, ""), "metadata.resourceVersion"))
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

// followWatch waits until w has seen every write of want; a watch that
// ended meanwhile must have ended with an ERROR event that is not a 500,
// and is resumed from the last resourceVersion it saw, as a client would.
func followWatch(t *testing.T, base string, w *eventLog, want map[string]int64) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resumed := 0
	wait.Eventually(t, settleTimeout, func() (bool, string) {
		select {
		case <-w.ended:
			for _, e := range w.errors {
				if code := gjson.Get(e, "object.code").Int(); code == 500 || code == 0 {
					t.Fatalf("the watch ended with %s", e)
				}
			}
			t.Logf("the watch ended with %v; resumed from %d", w.errors, w.lastRV)
			code, answer, next := openWatch(ctx, t, base, w.lastRV)
			if code != http.StatusOK {
				return false, "resume the watch: " + answer
			}
			next.mu.Lock()
			for name, rv := range w.seen {
				next.seen[name] = rv
			}
			next.mu.Unlock()
			w, resumed = next, resumed+1
		default:
		}
		missing := w.missing(want)
		return len(missing) == 0, "the watch to see every acknowledged write; missing " + firstTen(missing)
	})
	t.Logf("the watch saw all %d acknowledged writes, resumed %d times", len(want), resumed)
}
