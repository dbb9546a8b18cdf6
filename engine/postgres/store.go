// Package postgres implements engine.Store on PostgreSQL: one JSONB row per
// object, a cluster-wide resourceVersion from one sequence, and an events log
// written in the same statement as every change. Each Store runs one poller
// that reads the log in resourceVersion order for every watcher and list of
// its process. It is the only package of dynapi that talks to PostgreSQL;
// the schema lives in /migrations.
package postgres

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/watch"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// Options tune a Store. Zero values take the defaults.
type Options struct {
	// Retention is how long the events log keeps history for watches and
	// paginated lists (default 5 minutes, kube-apiserver's watch cache
	// horizon). Older resourceVersions get Expired.
	Retention time.Duration
	// CompactInterval is how often the log is compacted (default 10 s).
	CompactInterval time.Duration
	// Watch bounds the memory kept for watchers.
	Watch watch.Options
	// Logger receives the errors of background work (default: discarded).
	Logger *slog.Logger
	// Metrics, when set, registers the Store's metrics.
	Metrics prometheus.Registerer
	// CountInterval is how often the objects of each resource are counted
	// for apiserver_storage_objects (kube-apiserver's
	// --etcd-count-metric-poll-period), and after Migrate; 0: never.
	CountInterval time.Duration
	// Encryption, when set, returns the Transformer of a resource whose
	// bodies are encrypted at rest, nil for the others (engine/encryption).
	// Nil: nothing is encrypted, and reads and writes do no extra work.
	Encryption func(engine.GroupResource) Transformer
	// ReadURLs name hot-standby replicas of the database. Gets, lists and
	// the poller's reads of the events log run on one that has replayed
	// past the primary's WAL position taken as the read began, else on the
	// primary; writes and locks always run on the primary.
	ReadURLs []string
	// MaxReplicaLag is how long a read waits for a replica to replay past
	// that position before the primary answers it (default 100 ms).
	MaxReplicaLag time.Duration
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Retention <= 0 {
		o.Retention = 5 * time.Minute
	}
	if o.CompactInterval <= 0 {
		o.CompactInterval = 10 * time.Second
	}
	if o.MaxReplicaLag <= 0 {
		o.MaxReplicaLag = defaultMaxReplicaLag
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// Store is an engine.Store backed by a PostgreSQL connection pool. It is safe
// for concurrent use, and several processes may share one database.
type Store struct {
	pool *pgxpool.Pool // reads, lists and the rest
	// writePool serves the batcher of writes alone; its connections plan
	// each statement once (see writeConns).
	writePool *pgxpool.Pool
	// background serves the poller, the notifier, compaction and the
	// position query, one connection each at most: requests filling pool
	// never delay events, nor the choice of where a read runs.
	background *pgxpool.Pool
	opts       Options
	events     *watch.Broadcaster
	poller     *poller
	notifier   *notifier
	writes     *batcher // creates, updates and deletes
	reads      *batcher // gets
	router     *router  // where each read runs: the primary or a replica
	stop       context.CancelFunc
	closed     <-chan struct{} // closed by Close
	running    sync.WaitGroup
	// freshWait bounds the wait for a resourceVersion not reached yet.
	freshWait time.Duration
	// lists bounds the list segments reading at once (listGate).
	lists *listGate
	// created counts this process's creates; grown wakes
	// analyzeWhileSmall (see noteCreate).
	created atomic.Int64
	grown   chan struct{}

	// metrics are nil without Options.Metrics.
	metrics *storeMetrics

	// beforeCommit, when set (by tests only), runs each write in an
	// explicit transaction and is called before its COMMIT; an error
	// rolls the write back.
	beforeCommit func(ctx context.Context) error
}

var _ engine.Store = (*Store)(nil)

// dbtx is what the queries need, served by both *pgxpool.Pool and pgx.Tx.
type dbtx interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Open is OpenWithOptions with the default Options.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	return OpenWithOptions(ctx, databaseURL, Options{})
}

// OpenWithOptions connects to the database at databaseURL (a URL or
// key=value string) with a pool sized for the machine, unless the URL sets
// pool_max_conns, and JIT compilation off, unless the URL sets jit; and starts the Store's background work: the events
// poller, its LISTEN connection, and compaction. It fails when the
// database cannot be reached. The schema may be migrated after Open: the
// poller starts once it finds it.
func OpenWithOptions(ctx context.Context, databaseURL string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse database URL: %w", err)
	}
	configurePool(cfg, databaseURL)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("create connection pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	background, err := pgxpool.NewWithConfig(ctx, genericPlans(cfg, backgroundConns))
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("create background connection pool: %w", err)
	}
	writePool, err := pgxpool.NewWithConfig(ctx, genericPlans(cfg, writeConns(cfg)))
	if err != nil {
		background.Close()
		pool.Close()
		return nil, fmt.Errorf("create write connection pool: %w", err)
	}
	replicas, err := openReplicas(ctx, opts.ReadURLs, configurePool)
	if err != nil {
		writePool.Close()
		background.Close()
		pool.Close()
		return nil, err
	}
	s := &Store{pool: pool, writePool: writePool, background: background, opts: opts.withDefaults(), freshWait: freshWait,
		grown: make(chan struct{}, 1), lists: newListGate(int(cfg.MaxConns)), metrics: newStoreMetrics(opts.Metrics, pool, writePool)}
	metrics := newReplicaMetrics(s.opts.Metrics)
	s.router = &router{replicas: replicas, maxLag: s.opts.MaxReplicaLag, metrics: metrics,
		at: &positions{db: background, queries: metrics.positions}}
	s.start(cfg.ConnConfig)
	return s, nil
}

// configurePool sizes a pool for the machine, unless databaseURL sets
// pool_max_conns, and turns JIT compilation off, unless it sets jit.
func configurePool(cfg *pgxpool.Config, databaseURL string) {
	if !strings.Contains(databaseURL, "pool_max_conns") {
		cfg.MaxConns = int32(max(4, 4*runtime.GOMAXPROCS(0)))
	}
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		// Why: the list statements' cost estimates (unknown resourceVersions)
		// exceed jit_above_cost, and compiling takes longer than running them.
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
}

// genericPlans is cfg for a pool of at most size connections, opened as
// they are needed, that plan each prepared statement once
// (plan_cache_mode force_generic_plan): see backgroundConns and writeConns.
func genericPlans(cfg *pgxpool.Config, size int32) *pgxpool.Config {
	c := cfg.Copy()
	c.MaxConns, c.MinConns = size, 0
	c.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	return c
}

// writeConns is the size of Store.writePool: as many batches of writes
// as may run at once (see batcher.run), half the request pool's size, as
// when they shared it.
//
// Why a pool of their own, planning each statement once: a merged write
// (see groupWrites) looks up its rows by key whatever its arguments, but
// its custom plan is made for the lengths of its arrays, and for the two
// or three writes of a batch under moderate load it looks cheaper than
// the generic plan made for ten, so PostgreSQL planned it anew on every
// call. pg_stat_statements with track_planning, dynapi-bench with 4
// clients, 20,000 writes each: creates planned 7,812 times in 3,178 ms
// for 1,907 ms of running, updates 2,635 ms for 1,593, deletes 2,047 ms
// for 697; PostgreSQL's CPU per create 345 µs, four times its 85 µs at 16
// clients, whose batches of eight had settled on the generic plan.
// Setting the mode in each batch's transaction instead (as gets do, see
// queryGeneric) cost 3-4% of the writes at 16 clients: a statement more
// on the one batch in flight.
func writeConns(cfg *pgxpool.Config) int32 {
	return max(1, cfg.MaxConns/2)
}

// backgroundConns is the size of Store.background: the poller, the
// notifier, compaction and, with replicas, the primary's position query.
//
// Its connections plan each prepared statement once (plan_cache_mode
// force_generic_plan). Why: PostgreSQL planned the poller's read of the
// log (pollSQL) anew on every call, 230 µs of planning for 70 µs of
// running, since a custom plan for a W near the log's end always looks
// cheaper than the generic one; both are the same index scan of
// events_pkey (TestPlannedOnce). Measured with pg_stat_statements
// over 10,000 creates: 1,642 plans in 374 ms became 3 in 1 ms, about 37
// µs of PostgreSQL's CPU per create. The background statements are fixed
// queries on keys, whose plans do not depend on their arguments.
const backgroundConns = 4

// start runs the background goroutines until Close.
func (s *Store) start(listenConfig *pgx.ConnConfig) {
	ctx, stop := context.WithCancel(context.Background())
	s.stop, s.closed = stop, ctx.Done()
	// The pool has 4 connections per core: the batcher of gets may take
	// half, and that of writes has as many of its own (writeConns).
	sizes := newBatchSizes(s.opts.Metrics)
	maxInFlight := max(1, int(s.pool.Config().MaxConns)/2)
	writes := newBatcher(s.writePool, int(s.writePool.Config().MaxConns), sizes.WithLabelValues("write"), (*batcher).pipelined)
	reads := newBatcher(s.pool, maxInFlight, sizes.WithLabelValues("read"), getsTogether)
	s.writes, s.reads = writes, reads
	s.running.Go(func() { writes.run(ctx) })
	s.running.Go(func() { reads.run(ctx) })
	for _, r := range s.router.replicas {
		r.gets = newBatcher(r.pool, max(1, int(r.pool.Config().MaxConns)/2), sizes.WithLabelValues("read"), getsTogether)
		s.running.Go(func() { r.gets.run(ctx) })
	}
	s.events = watch.New(0, s.replay, s.opts.Watch)
	s.poller = newPoller(s.background, s.events, s.opts.Logger)
	s.poller.router = s.router
	if s.opts.Encryption != nil {
		s.poller.open = s.openEvent
	}
	s.notifier = &notifier{pool: s.background, pending: make(chan struct{}, 1), log: s.opts.Logger}
	s.running.Go(func() { s.poller.run(ctx) })
	s.running.Go(func() { s.poller.listen(ctx, listenConfig) })
	s.running.Go(func() { s.notifier.run(ctx) })
	s.running.Go(func() { s.compactEvery(ctx, s.opts.CompactInterval) })
	s.running.Go(func() { s.analyzeWhileSmall(ctx) })
	s.running.Go(func() { s.countEvery(ctx, s.opts.CountInterval) })
}

// Close stops the background work, ends every watch (with a
// ServiceUnavailable EventError) and closes every connection; in-flight
// calls fail.
func (s *Store) Close() {
	s.stop()
	s.running.Wait()
	s.events.Close()
	s.background.Close()
	s.writePool.Close()
	s.pool.Close()
	closeReplicas(s.router.replicas)
}

// Ping checks that the database answers, for readiness probes. A failed
// ping closes its connection, so it tries once more, on a new one: after a
// failover, with a multi-host URL, the pool's old connections lead to the
// old primary, and a new one to the database that now takes writes.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err == nil {
		return nil
	}
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

// Migrate applies the migrations of fsys that the database lacks; see Migrate.
func (s *Store) Migrate(ctx context.Context, fsys fs.FS) error {
	if err := Migrate(ctx, s.pool, fsys); err != nil {
		return err
	}
	s.poller.kick() // it may have been waiting for the schema
	s.metrics.recount()
	return nil
}
