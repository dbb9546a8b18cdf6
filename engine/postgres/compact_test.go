package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/wait"
	"github.com/jackc/pgx/v5"
)

// execSQL runs statements on the database at databaseURL.
func execSQL(t testing.TB, databaseURL string, sql ...string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, q := range sql {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// queryInt returns the one integer sql returns.
func queryInt(t testing.TB, databaseURL, sql string) int64 {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int64
	if err := conn.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func TestCompact(t *testing.T) {
	url := pgtest.Open(t)
	// Only the test's calls compact: a store's own compaction (every 10 s
	// by default, which a loaded machine reaches before the calls below)
	// would hold the lock while both calls skip, and the checks would
	// read its work half done, with the horizon it raised at a lower W.
	opts := postgres.Options{Retention: time.Hour, CompactInterval: 24 * time.Hour}
	s := openStoreWith(t, url, opts)
	other := openStoreWith(t, url, opts)
	createNamespace(t, s, "default")
	// 2,500 old events (more than one batch), then a recent one. Each old
	// event a millisecond younger than the one before: with one timestamp
	// for all, the newest by creation time would be any of them, as the
	// plan of horizonSQL happens to order ties.
	execSQL(t, url, `SELECT setval('resource_version', 2500)`,
		`INSERT INTO events (resource_version, type, created_at)
		 SELECT g, 'GAP', now() - interval '1 day' + g * interval '1 millisecond' FROM generate_series(2, 2500) g`)
	recent := mustCreate(t, s, newObject(pipes, "default", "p", nil)).ResourceVersion
	waitWatermark(t, s, recent)
	waitWatermark(t, other, recent)
	done := make(chan error)
	for _, st := range []*postgres.Store{s, other} { // one of them compacts, the other skips
		go func() { done <- postgres.Compact(context.Background(), st) }()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if h := queryInt(t, url, "SELECT horizon FROM compaction"); h != 2500 {
		t.Errorf("horizon = %d; want 2500, the newest event older than the retention", h)
	}
	if n := queryInt(t, url, "SELECT count(*) FROM events"); n != 1 {
		t.Errorf("%d events left; want the recent one", n)
	}
	ch := mustWatch(t, other, engine.WatchOptions{Resource: pipes, ResourceVersion: 2500})
	if ev := receive(t, ch, 1, 5*time.Second)[0]; ev.Object.ResourceVersion != recent {
		t.Errorf("watch from the horizon: %s at %d; want the recent create", ev.Type, ev.Object.ResourceVersion)
	}
}

// TestLaggingProcessResets checks a process whose poller fell behind the
// compaction horizon (stalled longer than the retention): its watchers end
// with Expired, and it carries on from the horizon.
func TestLaggingProcessResets(t *testing.T) {
	url := pgtest.Open(t)
	s := openStore(t, url)
	createNamespace(t, s, "default")
	ch := mustWatch(t, s, engine.WatchOptions{Resource: pipes})
	// What another process's compaction would leave if this one had
	// not read the log up to 1000 (as it would be if it had been stalled).
	execSQL(t, url, `SELECT setval('resource_version', 1000)`, `UPDATE compaction SET horizon = 1000`)
	mustCreate(t, s, newObject(pipes, "default", "p", nil))
	ev := receive(t, ch, 1, 5*time.Second)[0]
	if ev.Type != engine.EventError || engine.ErrorCode(ev.Err) != engine.CodeExpired {
		t.Fatalf("got %s %v; want an Expired error", ev.Type, ev.Err)
	}
	ch = mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: 1000})
	mustCreate(t, s, newObject(pipes, "default", "q", nil))
	if got := receive(t, ch, 2, 5*time.Second); got[0].Object.Key.Name != "p" || got[1].Object.Key.Name != "q" {
		t.Errorf("after the reset: %s; want p and q", summary(got))
	}
}

// TestCompactionAnalyzesAfterABurst checks that statistics are gathered
// after many writes, so that selectors plan on the GIN index right after a
// bulk load instead of waiting for autovacuum.
func TestCompactionAnalyzesAfterABurst(t *testing.T) {
	url := pgtest.Open(t)
	s := openStoreWith(t, url, postgres.Options{})
	ctx := context.Background()
	createNamespace(t, s, "default")
	analyzed := `SELECT analyze_count + autoanalyze_count FROM pg_stat_user_tables WHERE relid = 'objects'::regclass`
	execSQL(t, url, "ALTER TABLE objects SET (autovacuum_enabled = false)") // only compaction may analyze here
	if err := postgres.Compact(ctx, s); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, url, analyzed); n != 0 {
		t.Fatalf("analyzed an empty table: %d", n)
	}
	for i := range 1200 {
		mustCreate(t, s, newObject(pipes, "default", fmt.Sprintf("p%04d", i), map[string]string{"bucket": fmt.Sprint(i % 100)}))
	}
	// Idle backends flush their counters within 10 s.
	wait.Eventually(t, 25*time.Second, func() (bool, string) {
		if queryInt(t, url, analyzed) > 0 {
			return true, ""
		}
		if err := postgres.Compact(ctx, s); err != nil {
			t.Fatal(err)
		}
		return false, "objects analyzed after 1,200 writes"
	})
}

// TestStatisticsFollowASmallTableGrowing checks that a fresh table's
// statistics are gathered again as writes make it grow, without waiting
// for compaction or autovacuum: the cached plans of write statements made
// while the table looked like one page would scan it whole at every write.
func TestStatisticsFollowASmallTableGrowing(t *testing.T) {
	url := pgtest.Open(t)
	s := openStoreWith(t, url, postgres.Options{CompactInterval: time.Hour})
	createNamespace(t, s, "default")
	execSQL(t, url, "ALTER TABLE objects SET (autovacuum_enabled = false)") // only the store may analyze here
	execSQL(t, url, "ANALYZE objects")                                      // one page, as CREATE INDEX at start leaves it
	if n := queryInt(t, url, reltuplesSQL); n > 10 {
		t.Fatalf("reltuples %d before the writes", n)
	}
	for i := range 1100 {
		mustCreate(t, s, newObject(pipes, "default", fmt.Sprintf("p%04d", i), map[string]string{"bucket": fmt.Sprint(i % 100)}))
	}
	reltuplesAtLeast(t, url, 900)
	// The count is all the store gathered: the statistics of labels, which
	// label selectors' plans need, are compaction's to gather, and the
	// changes it goes by are still counted.
	// -1: every value distinct, as the first ANALYZE of one row found.
	labelsDistinct := `SELECT (n_distinct = -1)::int FROM pg_stats WHERE tablename = 'objects' AND attname = 'labels'`
	if queryInt(t, url, labelsDistinct) != 1 {
		t.Fatal("the store gathered the statistics of labels too")
	}
	wait.Eventually(t, 25*time.Second, func() (bool, string) { // idle backends flush their counters within 10 s
		if err := postgres.Compact(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		return queryInt(t, url, labelsDistinct) == 0, "compaction gathers the statistics of labels (101 values)"
	})
}

// TestStatisticsNotGatheredForWritesThatDoNotGrow checks that updates do
// not make the store analyze a small table again: only creates grow it.
// Counting every write made a cluster under 10,000 objects ANALYZE every
// 1,000 writes for ever.
func TestStatisticsNotGatheredForWritesThatDoNotGrow(t *testing.T) {
	url := pgtest.Open(t)
	s := openStoreWith(t, url, postgres.Options{CompactInterval: time.Hour})
	createNamespace(t, s, "default")
	execSQL(t, url, "ALTER TABLE objects SET (autovacuum_enabled = false)") // only the store may analyze here
	var objs []engine.Object
	for i := range 1100 {
		objs = append(objs, mustCreate(t, s, newObject(pipes, "default", fmt.Sprintf("p%04d", i), nil)))
	}
	reltuplesAtLeast(t, url, 900) // the analyze after the 1,000th create
	analyzed := `SELECT analyze_count FROM pg_stat_user_tables WHERE relid = 'objects'::regclass`
	before := queryInt(t, url, analyzed)
	for range 2 {
		for i, o := range objs {
			o.Body = []byte(strings.Replace(string(o.Body), `"size":3`, `"size":4`, 1))
			objs[i] = mustUpdate(t, s, o)
		}
	}
	for i := range 2000 - 1101 { // to the 2,000th create, the namespace's included
		mustCreate(t, s, newObject(pipes, "default", fmt.Sprintf("q%04d", i), nil))
	}
	reltuplesAtLeast(t, url, 1900) // the analyze after the 2,000th create, the last one
	if n := queryInt(t, url, analyzed) - before; n != 1 {
		t.Errorf("%d ANALYZEs after 2,200 updates and 899 creates, want 1 (at the 2,000th create)", n)
	}
}

// reltuplesSQL reads the row count PostgreSQL's statistics give objects.
const reltuplesSQL = `SELECT reltuples::bigint FROM pg_class WHERE oid = 'objects'::regclass`

// reltuplesAtLeast waits until PostgreSQL's statistics give objects at
// least n rows.
func reltuplesAtLeast(t *testing.T, url string, n int64) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, func() (bool, string) {
		got := queryInt(t, url, reltuplesSQL)
		return got >= n, fmt.Sprintf("reltuples %d, want at least %d", got, n)
	})
}
