package postgres

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/dynapi/dynapi/engine"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// statement is one SQL statement that returns exactly one row, scanned
// into dest: every get, create, update and delete is one.
type statement struct {
	sql  string
	args []any
	dest []any
	// key is the object's: a batch runs its statements in key order, so
	// that batches take row locks in one order and cannot deadlock.
	key engine.ObjectKey
}

// run runs the statement on db.
func (st statement) run(ctx context.Context, db dbtx) error {
	return db.QueryRow(ctx, st.sql, st.args...).Scan(st.dest...)
}

// maxBatch is the most statements a batcher sends in one round trip.
const maxBatch = 64

// batcher runs statements for concurrent requests, sending those that
// arrive while its workers are busy together: one round trip and one
// transaction (one commit, one WAL flush) for the whole batch. An idle
// batcher sends each statement at once, alone; under load, batches form
// by themselves, as many statements in each as arrived during the
// previous round trip.
//
// Why: with 16 concurrent writers on two cores, PostgreSQL spent more
// time per create on the round trip and the commit than on the insert;
// eight inserts per round trip ran three times as many inserts per second.
//
// The statements of a batch run in one implicit transaction, in key order.
// Requests in flight together are concurrent, so any order is a valid
// serialization, and each statement sees the effects of those before it,
// as if they had run one after another. If one fails, PostgreSQL rolls
// the whole batch back; then each runs again alone, so that the failure is
// its own (and a GAP collision is retried as retryGaps does).
type batcher struct {
	pool    *pgxpool.Pool
	calls   chan *call // unbuffered: a call waits in the send until a worker takes it
	workers int
	sizes   prometheus.Observer // statements per round trip
}

// call is one statement waiting for its result.
type call struct {
	ctx  context.Context
	st   statement
	done chan error // capacity 1
}

func newBatcher(pool *pgxpool.Pool, workers int, sizes prometheus.Observer) *batcher {
	return &batcher{pool: pool, calls: make(chan *call), workers: workers, sizes: sizes}
}

// newBatchSizes returns the histogram of statements per round trip, by
// kind (read or write), registered with reg when not nil.
func newBatchSizes(reg prometheus.Registerer) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "dynapi_storage_batch_statements",
		Help:    "Statements sent to PostgreSQL in one round trip and transaction, by kind: read (gets) or write (creates, updates, deletes).",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64}}, []string{"kind"})
	if reg != nil {
		reg.MustRegister(h)
	}
	return h
}

// errStoreClosed is the error of a statement sent after Close.
var errStoreClosed = errors.New("the store is closed")

// do runs st with the statements of other requests in flight, and returns
// its error once its row is scanned.
func (b *batcher) do(ctx context.Context, closed <-chan struct{}, st statement) error {
	c := &call{ctx: ctx, st: st, done: make(chan error, 1)}
	select {
	case b.calls <- c:
	case <-ctx.Done():
		return ctx.Err()
	case <-closed:
		return errStoreClosed
	}
	// Not abandoned when ctx ends: the worker writes into st.dest.
	return <-c.done
}

// run starts the workers; they stop when ctx ends.
func (b *batcher) run(ctx context.Context) {
	done := make(chan struct{})
	for range b.workers {
		go func() {
			defer func() { done <- struct{}{} }()
			b.work(ctx)
		}()
	}
	for range b.workers {
		<-done
	}
}

// work takes the calls waiting, runs them, and again, until ctx ends.
func (b *batcher) work(ctx context.Context) {
	for {
		var calls []*call
		select {
		case c := <-b.calls:
			calls = append(calls, c)
		case <-ctx.Done():
			return
		}
	more:
		for len(calls) < maxBatch {
			select {
			case c := <-b.calls:
				calls = append(calls, c)
			default:
				break more
			}
		}
		b.send(ctx, calls)
	}
}

// send runs calls and delivers their results.
func (b *batcher) send(ctx context.Context, calls []*call) {
	calls = slices.DeleteFunc(calls, func(c *call) bool {
		if err := c.ctx.Err(); err != nil {
			c.done <- err
			return true
		}
		return false
	})
	if len(calls) > 0 {
		b.sizes.Observe(float64(len(calls)))
	}
	switch len(calls) {
	case 0:
		return
	case 1:
		b.alone(calls[0])
		return
	}
	slices.SortStableFunc(calls, func(x, y *call) int { return compareKeys(x.st.key, y.st.key) })
	batch := &pgx.Batch{}
	for _, c := range calls {
		batch.Queue(c.st.sql, c.st.args...)
	}
	results := b.pool.SendBatch(ctx, batch)
	errs := make([]error, len(calls))
	failed := false
	for i, c := range calls {
		errs[i] = results.QueryRow().Scan(c.st.dest...)
		var pgErr *pgconn.PgError
		failed = failed || errors.As(errs[i], &pgErr)
	}
	closeErr := results.Close()
	for i, c := range calls {
		switch {
		case failed:
			// The transaction was rolled back: nothing of the batch happened.
			b.alone(c)
		case errs[i] == nil && closeErr != nil:
			// The commit failed (the connection broke): the outcome is
			// unknown, as for a statement sent alone.
			c.done <- closeErr
		default:
			c.done <- errs[i]
		}
	}
}

// compareKeys orders keys as the objects table does.
func compareKeys(a, b engine.ObjectKey) int {
	return cmp.Or(cmp.Compare(a.Resource.Group, b.Resource.Group), cmp.Compare(a.Resource.Resource, b.Resource.Resource),
		cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// alone runs one call by itself, as its own transaction.
func (b *batcher) alone(c *call) {
	c.done <- retryGaps(func() error { return c.st.run(c.ctx, b.pool) })
}
