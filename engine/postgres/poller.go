package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/watch"
	"github.com/dynapi/dynapi/internal/wait"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	// pollBatch is the most events the poller reads, or gaps it fills, per statement.
	pollBatch = 1000
	// pollInterval is the safety net: the poller reads the log at least
	// this often, should a notification be lost.
	pollInterval = time.Second
	// pollSpacing is the least time between two reads of the log by one
	// poller, and between two notifications sent by one process. An idle
	// poller reads at once when kicked; under a stream of writes, each read
	// takes all the events of the last pollSpacing instead of one or two.
	// Measured at 2,700 creates/s over two processes, reading at every kick
	// made three reads of the log per write, 40% of PostgreSQL's time.
	// 5 ms rather than 2: 4,950 and 5,650 creates/s against 4,300 and
	// 5,200 (30,000 creates, 16 clients, two runs each), with the same
	// watch latency under load (p99 13–16 ms, one process or two).
	pollSpacing = 5 * time.Millisecond
)

// errNotReady is the error of a read that found the poller not started:
// it retries every pollInterval, and after a migration.
var errNotReady = &engine.Error{Code: engine.CodeUnavailable, RetryAfterSeconds: 1,
	Message: "the events log cannot be read yet; is the database migrated?"}

// poller reads the events log in resourceVersion order for every watcher
// and list of its process, and publishes it to a Broadcaster whose
// resourceVersion is the watermark W: every resourceVersion up to W is
// resolved, that is either committed in the log or known never to be (a
// GAP row), and every event up to W was published in order.
//
// Why a watermark: transactions commit out of resourceVersion order. A
// reader that saw 12 committed cannot deliver it while 11 may still
// commit; delivering 12 then 11 would reorder, skipping 11 would lose it.
type poller struct {
	pool   *pgxpool.Pool
	events *watch.Broadcaster
	log    *slog.Logger
	// open decrypts an event's bodies (Store.openEvent); nil when nothing
	// is encrypted. Set before run.
	open func(*engine.Event)
	// router chooses where the log is read: a replica that has replayed
	// past the primary's position, else pool. Gaps are filled, and what
	// they became is read, on pool alone. Set before run.
	router *router
	kicks  chan struct{} // a write or a notification: read the log now
	fillTo atomic.Int64  // a list waits for every resourceVersion up to it
	ready  chan struct{} // closed once W is known
	wanted struct {      // the resource columns of the last Interest read with
		gen     uint64
		columns []string
	}
}

func newPoller(pool *pgxpool.Pool, events *watch.Broadcaster, log *slog.Logger) *poller {
	return &poller{pool: pool, events: events, log: log, kicks: make(chan struct{}, 1), ready: make(chan struct{})}
}

// kick makes the poller read the log soon; kicks coalesce.
func (p *poller) kick() {
	select {
	case p.kicks <- struct{}{}:
	default:
	}
}

// want asks the poller to resolve every resourceVersion up to rv, which
// must have been handed out already (at most the sequence's value):
// gaps are filled even above the newest committed event.
func (p *poller) want(rv int64) {
	for {
		cur := p.fillTo.Load()
		if rv <= cur || p.fillTo.CompareAndSwap(cur, rv) {
			break
		}
	}
	p.kick()
}

// run finds the poller's start, then reads the log at every kick (at most
// once per pollSpacing) and every pollInterval, until ctx ends.
func (p *poller) run(ctx context.Context) {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	started := false
	var last time.Time // when the last read began
	for {
		if !spaced(ctx, last) {
			return
		}
		last = time.Now()
		var err error
		if !started {
			if err = p.start(ctx); err == nil {
				started = true
				close(p.ready)
			}
		}
		if started {
			err = p.drain(ctx)
		}
		switch {
		case err == nil || ctx.Err() != nil:
		case !started && isUndefinedTable(err):
			// Expected until Migrate has created the schema (Open comes first).
			p.log.Debug("events log not created yet", "err", err)
		default:
			p.log.Warn("read the events log", "err", err)
		}
		select {
		case <-p.kicks:
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

// spaced waits until pollSpacing has passed since last. It reports false
// if ctx ended first.
func spaced(ctx context.Context, last time.Time) bool {
	return wait.Sleep(ctx, pollSpacing-time.Since(last))
}

// boundsSQL reads where a poller starts: the compaction horizon, the
// sequence's value, and how many resourceVersions between are in the log.
const boundsSQL = `
SELECT c.horizon, s.seq,
	(SELECT count(*) FROM events WHERE resource_version > c.horizon AND resource_version <= s.seq)
FROM compaction c, (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS seq FROM resource_version) s`

// missingSQL lists the resourceVersions in ($1, $2] that the log lacks:
// taken by a write still in flight, or by one rolled back.
const missingSQL = `
WITH present AS (
	SELECT $1::bigint AS rv
	UNION ALL
	SELECT resource_version FROM events WHERE resource_version > $1 AND resource_version <= $2
), spans AS (
	SELECT rv + 1 AS lo, lead(rv, 1, $2 + 1) OVER (ORDER BY rv) - 1 AS hi FROM present
)
SELECT coalesce(array_agg(g ORDER BY g), '{}') FROM spans, generate_series(lo, hi) AS g`

// start resolves every resourceVersion handed out so far and sets W to the
// last one. Events up to it are history, read from the log by watchers
// that need them. Errors: the database's (the schema may not exist yet).
func (p *poller) start(ctx context.Context) error {
	var horizon, seq, present int64
	if err := p.pool.QueryRow(ctx, boundsSQL).Scan(&horizon, &seq, &present); err != nil {
		return fmt.Errorf("find the start of the events log: %w", err)
	}
	var missing []int64
	if present < seq-horizon { // a scan of the whole log, rarely needed
		if err := p.pool.QueryRow(ctx, missingSQL, horizon, seq).Scan(&missing); err != nil {
			return fmt.Errorf("find gaps in the events log: %w", err)
		}
	}
	for len(missing) > 0 {
		n := min(len(missing), pollBatch)
		if err := p.fill(ctx, missing[:n]); err != nil {
			return err
		}
		missing = missing[n:]
	}
	p.events.Reset(seq, nil)
	return nil
}

// drain reads the log until it has published everything it can.
func (p *poller) drain(ctx context.Context) error {
	for {
		more, err := p.step(ctx)
		if err != nil || !more {
			return err
		}
	}
}

// await waits, at most limit, until the poller has started and W reaches
// rv. It returns W and whether it reached rv. Errors: ctx's; Unavailable
// when the poller has not started within limit.
//
// Gaps below a committed event are filled at once; above the newest
// committed event, only up to want's target.
func (p *poller) await(ctx context.Context, rv int64, limit time.Duration) (int64, bool, error) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-p.ready:
	case <-timer.C:
		return 0, false, errNotReady
	case <-ctx.Done():
		return 0, false, ctx.Err()
	}
	for {
		changed := p.events.Changed() // before reading W: no move is missed
		if w := p.events.ResourceVersion(); w >= rv {
			return w, true, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return p.events.ResourceVersion(), false, nil
		case <-ctx.Done():
			return 0, false, ctx.Err()
		}
	}
}
