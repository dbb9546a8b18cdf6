package postgres

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

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
	// row, for a create or an update, is its arguments: the creates of a
	// batch are written by one statement, and so are its updates (see
	// groupWrites).
	row *writeRow
}

// run runs the statement on db.
func (st statement) run(ctx context.Context, db dbtx) error {
	return db.QueryRow(ctx, st.sql, st.args...).Scan(st.dest...)
}

const (
	// maxBatch is the most statements a batcher sends in one round trip.
	maxBatch = 64
	// stallAfter is how long a batch runs before the next may start
	// beside it. A batch's round trip takes 1–5 ms under load; one batch
	// at a time makes the largest batches (measured with 16 clients on
	// two cores: 3,650 creates and 18,100 gets/s, against 3,400 and
	// 16,800 with two at a time and 3,170 and 15,300 with four).
	stallAfter = 20 * time.Millisecond
)

// batcher runs statements for concurrent requests, sending those that
// arrive while a batch is in flight together: one round trip and one
// transaction (one commit, one WAL flush) for the whole batch. An idle
// batcher sends each statement at once, alone; under load, batches form
// by themselves, as many statements in each as arrived during the
// previous round trip.
//
// Why: with 16 concurrent writers on two cores, PostgreSQL spent more
// time per create on the round trip and the commit than on the insert;
// eight inserts per round trip ran three times as many inserts per second.
//
// The statements of a batch run in one implicit transaction, in key order;
// its creates, its updates and its deletes go as one statement each (see
// groupWrites), which PostgreSQL starts and ends once.
// Requests in flight together are concurrent, so any order is a valid
// serialization, and each statement sees the effects of those before it,
// as if they had run one after another. If one fails, PostgreSQL rolls
// the whole batch back; then each runs again alone, so that the failure is
// its own (and a GAP collision is retried as retryGaps does). The cost:
// the statements of one batch share its wait, so one that waits for a row
// lock delays those sent with it (not those sent after: see run).
type batcher struct {
	pool        *pgxpool.Pool
	calls       chan *call // unbuffered: a call waits in the send until run takes it
	maxInFlight int        // batches running at once, when they stall
	sizes       prometheus.Observer
	// together sends two or more calls in one round trip and delivers
	// their results: pipelined for any statements, getsTogether for gets.
	together func(b *batcher, ctx context.Context, calls []*call)
}

// call is one statement waiting for its result.
type call struct {
	ctx  context.Context
	st   statement
	done chan error // capacity 1
}

// newBatcher returns a batcher that sends batches with together.
func newBatcher(pool *pgxpool.Pool, maxInFlight int, sizes prometheus.Observer,
	together func(b *batcher, ctx context.Context, calls []*call)) *batcher {
	return &batcher{pool: pool, calls: make(chan *call), maxInFlight: maxInFlight, sizes: sizes, together: together}
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
	// Not abandoned when ctx ends: the batch writes into st.dest.
	return <-c.done
}

// run takes the calls waiting and sends them as one batch, and again,
// until ctx ends; then it waits for the batches in flight. The next batch
// goes when the previous one is done, or once it has taken stallAfter:
// then up to maxInFlight batches run at once, so that a statement stuck
// on a row lock (held by a long transaction elsewhere) does not hold up
// every other request of the process.
func (b *batcher) run(ctx context.Context) {
	var inFlight sync.WaitGroup
	defer inFlight.Wait()
	slots := make(chan struct{}, b.maxInFlight)
	stalled := time.NewTimer(0)
	defer stalled.Stop()
	for {
		calls := b.take(ctx)
		if calls == nil {
			return
		}
		slots <- struct{}{}
		done := make(chan struct{})
		inFlight.Go(func() {
			defer func() { <-slots; close(done) }()
			b.send(ctx, calls)
		})
		stalled.Reset(stallAfter)
		select {
		case <-done:
		case <-stalled.C:
		case <-ctx.Done():
			return
		}
	}
}

// take waits for a call, then takes those waiting behind it, up to
// maxBatch. It returns nil when ctx ends first.
func (b *batcher) take(ctx context.Context) []*call {
	var calls []*call
	select {
	case c := <-b.calls:
		calls = append(calls, c)
	case <-ctx.Done():
		return nil
	}
	for len(calls) < maxBatch {
		select {
		case c := <-b.calls:
			calls = append(calls, c)
		default:
			return calls
		}
	}
	return calls
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
	default:
		b.together(b, ctx, calls)
	}
}

// pipelined sends calls as one pipeline, in one implicit transaction.
func (b *batcher) pipelined(ctx context.Context, calls []*call) {
	slices.SortStableFunc(calls, func(x, y *call) int { return compareKeys(x.st.key, y.st.key) })
	groups := groupWrites(calls)
	batch := &pgx.Batch{}
	for _, g := range groups {
		batch.Queue(g.sql, g.args...)
	}
	results := b.pool.SendBatch(ctx, batch)
	failed := false
	for _, g := range groups {
		g.err = g.scan(results)
		var pgErr *pgconn.PgError
		failed = failed || errors.As(g.err, &pgErr)
	}
	closeErr := results.Close()
	var pgErr *pgconn.PgError
	failed = failed || errors.As(closeErr, &pgErr) // a commit refused rolls back
	for _, g := range groups {
		for _, c := range g.calls {
			switch {
			case failed:
				// The transaction was rolled back: nothing of the batch happened.
				b.alone(c)
			case g.err == nil && closeErr != nil:
				// The commit failed (the connection broke): the outcome is
				// unknown, as for a statement sent alone.
				c.done <- closeErr
			default:
				c.done <- g.err
			}
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
