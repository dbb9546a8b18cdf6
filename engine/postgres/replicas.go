package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/wait"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// Reads from hot-standby replicas. A read takes the primary's position
// (positions: one cheap query, shared by the reads that begin together),
// then runs on a replica once it has replayed past it, so it sees every
// write acknowledged before it began and is exactly as consistent as a
// read of the primary. A replica that has not caught up within maxLag, or
// fails, is skipped for a while (see replica), and the primary answers.
// Writes, locks and the poller's filling of gaps stay on the primary.

// defaultMaxReplicaLag is how long a read waits for a replica by default.
const defaultMaxReplicaLag = 100 * time.Millisecond

// replayPoll is how often a read waiting for a replica asks it again.
const replayPoll = time.Millisecond

// replayedSQL reads how far a replica has replayed the primary's WAL.
// NULL (not a replica) reads as -1: never caught up.
const replayedSQL = `SELECT coalesce((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, -1)`

// replica is one hot standby.
type replica struct {
	name string // host and port, for metrics and logs
	pool *pgxpool.Pool
	gets *batcher
	// replayed is the newest replay position it reported: a read whose
	// position it passed needs no query.
	replayed atomic.Int64
	// Until laggingUntil and downUntil (Unix nanoseconds), reads skip it
	// without asking: for maxLag after a read gave up waiting for it (a
	// lagging replica would add maxLag to every read), for replicaRetry
	// after it failed (a connection to a machine that is down may take
	// its whole timeout).
	laggingUntil, downUntil atomic.Int64
}

// replicaRetry is how long a replica that failed is skipped.
const replicaRetry = time.Second

// router chooses where each read runs.
type router struct {
	replicas []*replica
	next     atomic.Uint64 // round robin
	maxLag   time.Duration
	at       *positions
	metrics  *replicaMetrics
}

// target is where one read runs: the primary (replica nil) or a replica
// that has replayed past pos.
type target struct {
	replica *replica
	pos     position
}

// name is the target's metrics label.
func (t target) name() string {
	if t.replica == nil {
		return "primary"
	}
	return t.replica.name
}

// openReplicas makes a pool for each of urls, configured as the
// primary's (configure: pool size, jit). Errors: a bad URL. A replica
// that cannot be reached now is not an error: reads skip it.
func openReplicas(ctx context.Context, urls []string, configure func(*pgxpool.Config, string)) ([]*replica, error) {
	var out []*replica
	for _, u := range urls {
		cfg, err := pgxpool.ParseConfig(u)
		if err != nil {
			closeReplicas(out)
			return nil, fmt.Errorf("parse database read URL: %w", err)
		}
		configure(cfg, u)
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			closeReplicas(out)
			return nil, fmt.Errorf("create replica connection pool: %w", err)
		}
		out = append(out, &replica{name: replicaName(cfg), pool: pool})
	}
	return out, nil
}

// replicaName is a replica's host and port, without its credentials.
func replicaName(cfg *pgxpool.Config) string {
	return fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port)
}

// closeReplicas closes the replicas' pools.
func closeReplicas(rs []*replica) {
	for _, r := range rs {
		r.pool.Close()
	}
}

// choose returns where a read of op runs: a replica that has replayed
// past the primary's position taken now, else the primary. With no
// replicas it costs nothing.
func (r *router) choose(ctx context.Context, op string) target {
	if len(r.replicas) == 0 {
		return target{}
	}
	defer prometheus.NewTimer(r.metrics.routing).ObserveDuration()
	pos, err := r.at.take(ctx)
	if err != nil {
		r.metrics.read(op, target{})
		return target{}
	}
	return r.chooseAt(ctx, op, pos)
}

// chooseAt is choose for a position already taken.
func (r *router) chooseAt(ctx context.Context, op string, pos position) target {
	first := r.next.Add(1)
	for i := range len(r.replicas) {
		rep := r.replicas[(first+uint64(i))%uint64(len(r.replicas))]
		if err := skipped(rep); err != nil {
			r.metrics.fellBack(rep, err)
			continue
		}
		err := r.await(ctx, rep, pos.lsn)
		if err == nil {
			t := target{replica: rep, pos: pos}
			r.metrics.read(op, t)
			return t
		}
		r.metrics.fellBack(rep, err)
		switch {
		case errors.Is(err, errLagging):
			rep.laggingUntil.Store(time.Now().Add(r.maxLag).UnixNano())
		case ctx.Err() == nil:
			rep.downUntil.Store(time.Now().Add(replicaRetry).UnixNano())
		}
	}
	r.metrics.read(op, target{})
	return target{}
}

// Why a replica is skipped.
var (
	errLagging = errors.New("replica lags")
	errDown    = errors.New("replica failed a moment ago")
)

// skipped returns why reads skip rep now, or nil.
func skipped(rep *replica) error {
	now := time.Now().UnixNano()
	switch {
	case now < rep.downUntil.Load():
		return errDown
	case now < rep.laggingUntil.Load():
		return errLagging
	}
	return nil
}

// await waits, at most maxLag, until rep has replayed past lsn. Errors:
// errLagging; the replica's.
func (r *router) await(ctx context.Context, rep *replica, lsn int64) error {
	if rep.replayed.Load() >= lsn {
		return nil
	}
	deadline := time.Now().Add(r.maxLag)
	for {
		got, err := r.replayedBy(ctx, rep, deadline)
		if err != nil {
			return err
		}
		r.metrics.lag(rep, max(0, lsn-got))
		if got >= lsn {
			return nil
		}
		if time.Until(deadline) <= 0 {
			return errLagging
		}
		if !wait.Sleep(ctx, replayPoll) {
			return ctx.Err()
		}
	}
}

// replayedBy asks rep how far it has replayed; a query still running at
// deadline (plus maxLag, for the round trip) is a failure of the replica.
func (r *router) replayedBy(ctx context.Context, rep *replica, deadline time.Time) (int64, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(r.maxLag))
	defer cancel()
	var got int64
	if err := rep.pool.QueryRow(ctx, replayedSQL).Scan(&got); err != nil {
		return 0, fmt.Errorf("read the replica's replay position: %w", err)
	}
	storeMax(&rep.replayed, got)
	return got, nil
}

// storeMax sets v to n unless it holds more.
func storeMax(v *atomic.Int64, n int64) {
	for {
		cur := v.Load()
		if n <= cur || v.CompareAndSwap(cur, n) {
			return
		}
	}
}

// fallback reports whether a read that failed on t with err should run
// again on the primary: it failed on a replica, and not because the
// request ended.
func fallback(ctx context.Context, t target, err error) bool {
	return t.replica != nil && err != nil && ctx.Err() == nil && !isUserError(err)
}

// isUserError reports whether err is an answer (not found, a bad
// request), which the primary would give alike, not a failure.
func isUserError(err error) bool {
	var e *engine.Error
	return errors.As(err, &e) || errors.Is(err, pgx.ErrNoRows)
}

// retry counts a read of op that failed on t's replica with err and runs
// again on the primary; a replica that failed is skipped for a while.
func (r *router) retry(op string, t target, err error) {
	r.metrics.fellBack(t.replica, err)
	r.metrics.read(op, target{})
	if !errors.Is(err, errAheadOfPrimary) {
		t.replica.downUntil.Store(time.Now().Add(replicaRetry).UnixNano())
	}
}
