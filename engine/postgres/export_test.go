package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/watch"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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

// ListPlan is the plan (EXPLAIN) of one of the two statements of a List.
type ListPlan struct {
	Part string // "changed" or "unchanged"
	Mode string // "custom" or "generic"
	Text string
}

// ListPlans returns the plans PostgreSQL may run for a List of opts at rv,
// in the transaction List begins: the custom plans of both parts, and the
// generic plan of the unchanged part unless the transaction forces custom
// plans. (The changed part's generic plan, a scan of the whole log, costs
// far more than its custom plans, a few events after R, so the plan cache
// never picks it.) Each statement is prepared by name, as pgx's statement
// cache does: EXPLAIN of a statement with bound parameters plans with
// their values, whatever plan_cache_mode says.
func ListPlans(ctx context.Context, s *Store, opts engine.ListOptions, rv int64) ([]ListPlan, error) {
	st, _, err := parseListState(opts)
	if err != nil {
		return nil, err
	}
	st.latest, st.rv = false, rv
	plan, err := buildList(opts, st)
	if err != nil {
		return nil, err
	}
	parts := []struct {
		name, sql string
		args      []any
		modes     []string
	}{
		{"changed", plan.changed, plan.changedArgs, []string{"custom"}},
		{"unchanged", plan.unchanged, plan.unchangedArgs, []string{"custom", "generic"}},
	}
	if customPlans(opts) {
		parts[1].modes = parts[1].modes[:1]
	}
	var plans []ListPlan
	for _, part := range parts {
		literals := make([]string, len(part.args))
		for j, a := range withFirst(part.args, rv) {
			literals[j] = sqlLiteral(a)
		}
		for _, mode := range part.modes {
			text, err := explainPrepared(ctx, s, opts, part.sql, mode, literals)
			if err != nil {
				return nil, err
			}
			plans = append(plans, ListPlan{Part: part.name, Mode: mode, Text: text})
		}
	}
	return plans, nil
}

// LatestChangedPlan returns the custom plan PostgreSQL makes for the
// changed part of a List of opts at the newest state, on the primary, when
// the process has resolved every resourceVersion up to w.
func LatestChangedPlan(ctx context.Context, s *Store, opts engine.ListOptions, w int64) (string, error) {
	plan, err := buildList(opts, listState{latest: true, w: w})
	if err != nil {
		return "", err
	}
	literals := make([]string, len(plan.changedArgs))
	for j, a := range withFirst(plan.changedArgs, w) {
		literals[j] = sqlLiteral(a)
	}
	return explainPrepared(ctx, s, opts, plan.changed, "custom", literals)
}

// NewestCountPlan returns the custom plan PostgreSQL makes for the count
// of what follows the first page of a List of opts at the newest state,
// on the primary, at rv.
func NewestCountPlan(ctx context.Context, s *Store, opts engine.ListOptions, rv int64) (string, error) {
	sql, args, err := buildCount(opts, nil, true)
	if err != nil {
		return "", err
	}
	literals := make([]string, len(args))
	for j, a := range withFirst(args, rv) {
		literals[j] = sqlLiteral(a)
	}
	return explainPrepared(ctx, s, opts, sql, "custom", literals)
}

// explainPrepared explains sql, prepared by name, run with the literals,
// in a transaction begun as List begins it, with plan_cache_mode mode.
func explainPrepared(ctx context.Context, s *Store, opts engine.ListOptions, sql, mode string, literals []string) (string, error) {
	tx, err := s.pool.BeginTx(ctx, listTxOptions(opts))
	if err != nil {
		return "", err
	}
	defer tx.Rollback(ctx)
	for _, stmt := range []string{"SET LOCAL plan_cache_mode = force_" + mode + "_plan", "PREPARE list_plan AS " + sql} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return "", err
		}
	}
	rows, _ := tx.Query(ctx, "EXPLAIN EXECUTE list_plan("+strings.Join(literals, ", ")+")")
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", err
	}
	_, err = tx.Exec(ctx, "DEALLOCATE list_plan")
	return strings.Join(lines, "\n"), err
}

// sqlLiteral writes a list statement's argument as SQL text.
func sqlLiteral(v any) string {
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	switch v := v.(type) {
	case string:
		return quote(v)
	case []string:
		quoted := make([]string, len(v))
		for i, s := range v {
			quoted[i] = quote(s)
		}
		return "ARRAY[" + strings.Join(quoted, ", ") + "]"
	default:
		return fmt.Sprint(v) // integers
	}
}

// InOneBatch runs fns concurrently and makes the one statement each sends
// (a write or a get) run in a single batch, pipelined: the batchers of s
// are replaced, for the call, by one without workers, whose calls the test
// takes itself. taken, if not nil, runs once every statement waits in the
// batch.
func InOneBatch(s *Store, taken func(), fns ...func()) {
	inOneBatch(s, s.writePool, (*batcher).pipelined, taken, fns...)
}

// GetsInOneBatch is InOneBatch for gets, sent together as the batcher of
// s's reads sends them.
func GetsInOneBatch(s *Store, fns ...func()) {
	inOneBatch(s, s.pool, getsTogether, nil, fns...)
}

func inOneBatch(s *Store, pool *pgxpool.Pool, together func(*batcher, context.Context, []*call), taken func(), fns ...func()) {
	b := newBatcher(pool, 0, prometheus.NewHistogram(prometheus.HistogramOpts{Name: "unused"}), together)
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
	b, err := s.poller.read(ctx, target{}, rv, resourceColumns(in), in.All())
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range b.rows {
		out[r.name] = r.body != nil
	}
	return out, nil
}

// ownerFixture fills objects (in a transaction rolled back after) with
// 20,000 objects in 20 namespaces, half of them dependents of another (or
// of a uid nobody has), and analyzes it, so that plans are made as for a
// populated table.
const ownerFixture = `INSERT INTO objects (resource, namespace, name, uid, resource_version, stored_version, body)
SELECT 'widgets.shop.example.com', 'ns' || (i % 20), 'o' || i, md5('o' || i)::uuid, i, 'v1',
	jsonb_build_object('metadata', jsonb_build_object('name', 'o' || i, 'uid', md5('o' || i)::uuid)
		|| CASE WHEN i % 2 = 0 THEN jsonb_build_object('ownerReferences', jsonb_build_array(jsonb_build_object(
			'apiVersion', 'shop.example.com/v1', 'kind', 'Widget', 'name', 'o' || (i - 20), 'uid', md5('o' || (i - 20 * (i % 4)))::uuid)))
		ELSE '{}' END
		|| CASE WHEN i % 500 = 1 THEN jsonb_build_object('deletionTimestamp', '2026-01-01T00:00:00Z', 'finalizers', jsonb_build_array('orphan'))
		ELSE '{}' END)
FROM generate_series(1, 20000) i`

// OwnerPlans explains the garbage collector's statements over a populated
// table, so that a test sees whether their indexes serve them (a
// predicate that does not match its partial index's is silently a scan).
func OwnerPlans(ctx context.Context, s *Store) (map[string]string, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	for _, stmt := range []string{ownerFixture, "ANALYZE objects"} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return nil, err
		}
	}
	out := map[string]string{}
	for name, q := range map[string]struct {
		sql  string
		args []string
	}{
		"OwnedBy":    {ownedBySQL, []string{"'6f1f0a52-3c55-4b8e-9d7e-1e2f3a4b5c6d'", "''", "''", "''", "500"}},
		"Ownerless":  {ownerlessSQL, []string{"''", "''", "''", "500"}},
		"Finalizing": {finalizingSQL, []string{"''", "''", "''", "500"}},
	} {
		if _, err := tx.Exec(ctx, "PREPARE owner_plan AS "+q.sql); err != nil {
			return nil, err
		}
		rows, _ := tx.Query(ctx, "EXPLAIN EXECUTE owner_plan("+strings.Join(q.args, ", ")+")")
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, "DEALLOCATE owner_plan"); err != nil {
			return nil, err
		}
		out[name] = strings.Join(lines, "\n")
	}
	return out, nil
}

// PumpGrace is how long a list waits for its reader holding its connection.
const PumpGrace = pumpGrace

// TakePosition reads the primary's position as a read from a replica
// does: shared with the reads that begin together, or by a query of its
// own on the Store's pool.
func TakePosition(ctx context.Context, s *Store, shared bool) error {
	if shared {
		_, err := s.router.at.take(ctx)
		return err
	}
	var pos position
	return s.pool.QueryRow(ctx, positionSQL).Scan(&pos.lsn, &pos.seq)
}

// CountObjects counts the objects of each resource for
// apiserver_storage_objects now.
func CountObjects(ctx context.Context, s *Store) error { return s.countObjects(ctx) }

// ExecForTest runs sql on s's pool: fixtures too big to write through s.
func ExecForTest(ctx context.Context, s *Store, sql string) error {
	_, err := s.pool.Exec(ctx, sql)
	return err
}

// Watermark returns the store's watermark W, every resourceVersion up to
// it resolved and published, and whether its poller has started (W is
// known).
func Watermark(s *Store) (int64, bool) {
	select {
	case <-s.poller.ready:
		return s.events.ResourceVersion(), true
	default:
		return 0, false
	}
}

// The statements whose plans tests check.
const (
	PollSQL    = pollSQL
	GetsSQL    = getsSQL
	CreatesSQL = createsSQL
	UpdatesSQL = updatesSQL
	DeletesSQL = deletesSQL
)

// GenericPlans returns the generic plans (EXPLAIN) of sql prepared by name,
// run with each of args (a parenthesized list of SQL literals).
func GenericPlans(ctx context.Context, s *Store, sql string, args ...string) ([]string, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	// Prepared statements and SET outlive a transaction: undone by hand.
	for _, stmt := range []string{"SET plan_cache_mode = force_generic_plan", "PREPARE generic_plan AS " + sql} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return nil, err
		}
	}
	defer conn.Exec(ctx, "DEALLOCATE generic_plan; RESET plan_cache_mode")
	var plans []string
	for _, a := range args {
		rows, _ := conn.Query(ctx, "EXPLAIN EXECUTE generic_plan"+a)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		plans = append(plans, strings.Join(lines, "\n"))
	}
	return plans, nil
}

// The pools of a Store, for PlansMade.
const (
	RequestPool = iota
	WritePool
	BackgroundPool
)

// PlansMade sums the generic and the custom plans PostgreSQL made for the
// prepared statement sql on the idle connections of one of s's pools.
func PlansMade(ctx context.Context, s *Store, which int, sql string) (generic, custom int64, err error) {
	pool := []*pgxpool.Pool{RequestPool: s.pool, WritePool: s.writePool, BackgroundPool: s.background}[which]
	for _, conn := range pool.AcquireAllIdle(ctx) {
		var g, c int64
		err = errors.Join(err, conn.QueryRow(ctx, `SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0)
			FROM pg_prepared_statements WHERE statement = $1`, sql).Scan(&g, &c))
		generic, custom = generic+g, custom+c
		conn.Release()
	}
	return generic, custom, err
}
