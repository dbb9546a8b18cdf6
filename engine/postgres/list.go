package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/jackc/pgx/v5"
)

// List calls each for every object matching opts in (namespace, name) order
// (then resource, when opts.Resource is zero), as it was at one
// resourceVersion, streaming rows from the database. It stops at the first
// error each returns, which it returns as is. ListMeta.ResourceVersion is
// the state's (the first page's for later pages); Continue is set when more
// objects follow, and then RemainingItemCount, exact: counted at the first
// page's state and carried in the token.
//
// Which state, as kube-apiserver: with opts.ResourceVersion unset, the
// newest (a write acknowledged before List was called is in it); "0", the
// newest this process has resolved; N with NotOlderThan (the default), a
// state at least as new as N; N with Exact (or with a limit and no match),
// the state at N. Errors: BadRequest for a bad continue token, resource
// version or match, an unsupported field selector path or operator, or a
// malformed label requirement; Timeout when N is not reached within 3 s;
// Expired when the state is older than the history kept (for a continue
// token, the error carries a fresh token); ServiceUnavailable before the
// schema is migrated.
func (s *Store) List(ctx context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error) {
	defer s.metrics.since("list", opts.Resource, time.Now())
	opts, open := s.listOpener(ctx, opts)
	st, requested, err := parseListState(opts)
	if err != nil {
		return engine.ListMeta{}, err
	}
	if err := s.settle(ctx, &st, requested); err != nil {
		return engine.ListMeta{}, err
	}
	if open != nil {
		// Decrypted by the reader, not while the list holds its connection.
		plain := each
		each = func(obj engine.Object) error {
			if err := open(&obj); err != nil {
				return err
			}
			return plain(obj)
		}
	}
	return pumpList(ctx, opts.Limit, opts.Transient, each, func(p *pump) (engine.ListMeta, error) {
		t := s.router.choose(p.ctx, "list")
		meta, err := s.listOn(p, t, opts, st)
		if fallback(p.ctx, t, err) && p.discard() {
			// Nothing was handed to the reader yet: the primary reads it all.
			s.router.retry("list", t, err)
			meta, err = s.listOn(p, target{}, opts, st)
		}
		return meta, err
	})
}

// listOn reads the list of opts in the state st on t, for p's reader,
// in segments should the reader fall behind.
func (s *Store) listOn(p *pump, t target, opts engine.ListOptions, st listState) (engine.ListMeta, error) {
	// p.ctx: an error of each ends the reading too.
	meta, err := s.listSettled(p.ctx, t, opts, st, p.add)
	for errors.Is(err, errPaused) {
		segment, at, resumeErr := p.resume(opts, st, meta.ResourceVersion)
		if resumeErr != nil {
			return engine.ListMeta{}, resumeErr
		}
		// The same target: it holds every write up to the list's state.
		meta, _, err = s.listAt(p.ctx, t, segment, at, p.add)
	}
	return meta, err
}

// listSettled reads the state st on t; for a latest list with writes in
// flight, the state once they have settled.
func (s *Store) listSettled(ctx context.Context, t target, opts engine.ListOptions, st listState, each func(engine.Object) error) (engine.ListMeta, error) {
	meta, seq, err := s.listAt(ctx, t, opts, st, each)
	if !errors.Is(err, errUnsettled) {
		return meta, err
	}
	// Writes below seq are in flight: wait for them, then read the state
	// at seq, which holds every write acknowledged before.
	s.poller.want(seq)
	if _, ok, err := s.poller.await(ctx, seq, s.freshWait); err != nil || !ok {
		return engine.ListMeta{}, cmp.Or(err, tooLarge(seq, s.events.ResourceVersion()))
	}
	if t.replica != nil {
		// The replica must hold the writes that were in flight: a position
		// taken now is past their commits.
		t = s.router.choose(ctx, "list")
	}
	meta, _, err = s.listAt(ctx, t, opts, listState{rv: seq}, each)
	return meta, err
}

// errUnsettled says that a latest list found writes in flight below the
// sequence's value.
var errUnsettled = errors.New("writes in flight")

// listAt reads the state st on t. For a latest list it returns
// errUnsettled, with the sequence's value, when the state at that value is
// not all visible yet. An error of each ends it, with the ListMeta's
// resourceVersion set once the state is known (errPaused reads on there).
func (s *Store) listAt(ctx context.Context, t target, opts engine.ListOptions, st listState, each func(engine.Object) error) (engine.ListMeta, int64, error) {
	db := s.pool
	if t.replica != nil {
		db, st.primarySeq = t.replica.pool, &t.pos.seq
	}
	plan, err := buildList(opts, st)
	if err != nil {
		return engine.ListMeta{}, 0, err
	}
	release, err := s.lists.enter(ctx)
	if err != nil {
		return engine.ListMeta{}, 0, fmt.Errorf("begin list: %w", err)
	}
	defer release()
	tx, err := db.BeginTx(ctx, listTxOptions(opts))
	if err != nil {
		return engine.ListMeta{}, 0, fmt.Errorf("begin list: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // read-only: nothing to commit
	first := st.rv
	if st.latest {
		first = st.w
	}
	head, changed, err := readChanged(ctx, tx, plan, first)
	if err != nil {
		return engine.ListMeta{}, 0, err
	}
	rv := st.rv
	if st.latest {
		if head.resolved != head.seq-st.w {
			return engine.ListMeta{}, head.seq, errUnsettled
		}
		rv = head.seq
	}
	if rv < head.horizon {
		return engine.ListMeta{}, 0, s.expired(st, head.horizon)
	}
	rows, err := tx.Query(ctx, plan.unchanged, withFirst(plan.unchangedArgs, rv)...)
	if err != nil {
		return engine.ListMeta{}, 0, fmt.Errorf("list objects: %w", err)
	}
	defer rows.Close()
	m := &merger{rows: rows, changed: changed, all: plan.all}
	meta, err := m.stream(plan.limit, rv, each)
	if err != nil || meta.Continue == "" {
		return meta, 0, err
	}
	rows.Close() // done with it: the count runs on the same snapshot
	err = remaining(ctx, tx, opts, st.after, m.sent, &meta, st.latest && t.replica == nil)
	return meta, 0, err
}

// remaining sets meta.RemainingItemCount, for a page of sent objects after
// the token after, and carries it in meta.Continue: from after's count
// when it has one, else counted in tx, at meta's resourceVersion (the
// newest state on the primary if newest).
func remaining(ctx context.Context, tx pgx.Tx, opts engine.ListOptions, after *continueToken, sent int64, meta *engine.ListMeta, newest bool) error {
	var left int64
	if after != nil && after.Left != nil {
		left = *after.Left - sent
	} else {
		sql, args, err := buildCount(opts, after, newest)
		if err != nil {
			return err
		}
		var total int64
		if err := tx.QueryRow(ctx, sql, withFirst(args, meta.ResourceVersion)...).Scan(&total); err != nil {
			return fmt.Errorf("count list: %w", err)
		}
		left = total - sent
	}
	t, err := decodeContinue(meta.Continue)
	if err != nil {
		return err
	}
	t.Left = &left
	meta.Continue, meta.RemainingItemCount = t.encode(), &left
	return nil
}

// withFirst returns args with its first element set to first.
func withFirst(args []any, first int64) []any {
	args[0] = first
	return args
}

// expired is the Expired error of a list whose state was compacted. A
// continue token gets a fresh one at the newest state this process has
// resolved, or at the horizon if this process lags behind it (every
// resourceVersion up to the horizon was resolved before compaction).
func (s *Store) expired(st listState, horizon int64) error {
	if st.after == nil {
		return tooOldList()
	}
	fresh := *st.after
	fresh.RV = max(s.events.ResourceVersion(), horizon)
	return continueExpired(fresh.encode())
}

// listTxOptions begins a List's read-only snapshot, with the planner
// settings its statements need, set in the same round trip.
//
// Custom plans, made with the values bound, for lists with a label
// selector, at an older resourceVersion (continue pages, Exact) or with
// body fields.
// Why: a generic plan is made before the values are known. The changed
// part's "events after R" is empty for a recent R and the whole log for an
// old one, and planned blind it scans and sorts the log on every continue
// page (31 ms a page at 100k objects). For a label selector the generic
// plan ANDs the GIN index with a bitmap of every key of the namespace
// from the primary key: 18.7 ms for 1% of 100k objects, against 3.9 ms
// for the custom plan, which reads the GIN index alone and fetches the
// matches; and the first grows with the namespace, the second with the
// matches. (pgx caches statements, and PostgreSQL plans a cached
// statement generically after five runs.) A custom plan needs statistics:
// compaction gathers them after a burst of writes (see analyzeIfStale).
// The expression indexes of selectable fields are partial (one resource
// each) on a literal path, which a generic plan cannot use.
//
// For lists of one resource without label or body field selectors, no
// sort: the primary key gives their order, and an index scan streams the
// first object at once. Why: for a whole list PostgreSQL's custom plans
// estimate a parallel scan and a sort cheaper, and sort 100k objects (137
// MB) on disk before sending the first; the whole list took 1.19–1.31 s
// instead of 0.93–1.13 s, with more of PostgreSQL's CPU. The changed part's
// plan, which needs its sort, is the same either way.
func listTxOptions(opts engine.ListOptions) pgx.TxOptions {
	o := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	var set []string
	if customPlans(opts) {
		set = append(set, "SET LOCAL plan_cache_mode = force_custom_plan")
	}
	if opts.Resource != (engine.GroupResource{}) && len(opts.Labels) == 0 && len(opts.BodyFields) == 0 {
		set = append(set, "SET LOCAL enable_sort = off")
	}
	if len(set) > 0 {
		o.BeginQuery = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; " + strings.Join(set, "; ")
	}
	return o
}

// customPlans says whether a List of opts plans its statements with their
// values (see listTxOptions).
func customPlans(opts engine.ListOptions) bool {
	return opts.Continue != "" || opts.ResourceVersionMatch == engine.MatchExact || len(opts.Labels) > 0 || len(opts.BodyFields) > 0
}
