package postgres

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/watch"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
)

// Compact runs one compaction of s now.
func Compact(ctx context.Context, s *Store) error { return s.compact(ctx) }

// SetBeforeCommit makes every write of s run in an explicit transaction
// and call f before its COMMIT; an error from f rolls the write back. Set
// it before the writes.
func SetBeforeCommit(s *Store, f func(ctx context.Context) error) { s.beforeCommit = f }

// SetFreshWait sets how long s waits for a resourceVersion not reached yet.
func SetFreshWait(s *Store, d time.Duration) { s.freshWait = d }

// ListPlans returns the plans (EXPLAIN) of the two statements a List of
// opts at rv runs, with custom and with generic plans.
func ListPlans(ctx context.Context, s *Store, opts engine.ListOptions, rv int64) ([]string, error) {
	st, _, err := parseListState(opts)
	if err != nil {
		return nil, err
	}
	st.latest, st.rv = false, rv
	plan, err := buildList(opts, st)
	if err != nil {
		return nil, err
	}
	var plans []string
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		// In the transaction List begins, with its settings.
		tx, err := s.pool.BeginTx(ctx, listTxOptions(opts))
		if err != nil {
			return nil, err
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = "+mode); err != nil {
			return nil, err
		}
		for _, q := range []struct {
			sql  string
			args []any
		}{{plan.changed, plan.changedArgs}, {plan.unchanged, plan.unchangedArgs}} {
			rows, _ := tx.Query(ctx, "EXPLAIN "+q.sql, withFirst(q.args, rv)...)
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return nil, err
			}
			plans = append(plans, mode+":\n"+strings.Join(lines, "\n"))
		}
	}
	return plans, nil
}

// InOneBatch runs fns concurrently and makes the one statement each sends
// (a write or a get) run in a single batch, pipelined: the batchers of s
// are replaced, for the call, by one without workers, whose calls the test
// takes itself. taken, if not nil, runs once every statement waits in the
// batch.
func InOneBatch(s *Store, taken func(), fns ...func()) {
	inOneBatch(s, (*batcher).pipelined, taken, fns...)
}

// GetsInOneBatch is InOneBatch for gets, sent together as the batcher of
// s's reads sends them.
func GetsInOneBatch(s *Store, fns ...func()) {
	inOneBatch(s, getsTogether, nil, fns...)
}

func inOneBatch(s *Store, together func(*batcher, context.Context, []*call), taken func(), fns ...func()) {
	b := newBatcher(s.pool, 0, prometheus.NewHistogram(prometheus.HistogramOpts{Name: "unused"}), together)
	writes, reads := s.writes, s.reads
	s.writes, s.reads = b, b
	defer func() { s.writes, s.reads = writes, reads }()
	var wg sync.WaitGroup
	for _, f := range fns {
		wg.Go(f)
	}
	calls := make([]*call, len(fns))
	for i := range calls {
		calls[i] = <-b.calls
	}
	if taken != nil {
		taken()
	}
	b.send(context.Background(), calls)
	wg.Wait()
}

// Interest is what the watchers of s want now.
func Interest(s *Store) watch.Interest { return s.events.Interest() }

// PolledBodies reads the log after rv as the poller of a process whose
// watchers want in does, and reports for each object name whether its
// event came with its body.
func PolledBodies(ctx context.Context, s *Store, rv int64, in watch.Interest) (map[string]bool, error) {
	b, err := s.poller.read(ctx, rv, resourceColumns(in), in.All())
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range b.rows {
		out[r.name] = r.body != nil
	}
	return out, nil
}
