package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// channel is the LISTEN/NOTIFY channel that wakes the pollers of the other
// processes after writes.
const channel = "dynapi_events"

// notifySQL notifies the other processes, in a transaction of its own
// that does not wait for its WAL flush: a lost notification costs at most
// pollInterval of latency, and the write it announces is already durable.
// One round trip: without arguments, pgx sends the simple protocol.
const notifySQL = "BEGIN; SET LOCAL synchronous_commit = off; SELECT pg_notify('" + channel + "', ''); COMMIT"

// changed wakes the watchers of every process after a write committed:
// this process's poller at once, the others through NOTIFY.
func (s *Store) changed() {
	s.poller.kick()
	s.notifier.schedule()
}

// notifier sends the coalesced cross-process notifications.
//
// Why not NOTIFY in the write's transaction (a trigger): a committing
// transaction that notified holds a database-wide lock through its WAL
// flush, so such commits cannot share flushes; that halved durable create
// throughput. Here at most one notification is in flight per process, and
// one more is sent if writes committed meanwhile: every write is followed
// by a notification that commits after it. Under a stream of writes, one
// notification per pollSpacing announces all the writes before it.
type notifier struct {
	pool    *pgxpool.Pool
	pending chan struct{} // capacity 1: a notification is due
	log     *slog.Logger
}

// schedule asks for a notification after the writes committed so far.
func (n *notifier) schedule() {
	select {
	case n.pending <- struct{}{}:
	default:
	}
}

// run sends the notifications, at most one per pollSpacing, until ctx ends.
func (n *notifier) run(ctx context.Context) {
	var last time.Time // when the last notification was sent
	for {
		select {
		case <-n.pending:
		case <-ctx.Done():
			return
		}
		if !spaced(ctx, last) {
			return
		}
		last = time.Now()
		if _, err := n.pool.Exec(ctx, notifySQL); err != nil && ctx.Err() == nil {
			n.log.Warn("notify other processes", "err", err)
		}
	}
}

// listen keeps a connection that LISTENs on channel, and kicks the poller
// at every notification, until ctx ends. It reconnects after a failure.
func (p *poller) listen(ctx context.Context, cfg *pgx.ConnConfig) {
	for {
		err := p.listenOnce(ctx, cfg)
		if ctx.Err() != nil {
			return
		}
		p.log.Warn("listen for notifications", "err", err)
		select {
		case <-time.After(pollInterval):
		case <-ctx.Done():
			return
		}
	}
}

// listenOnce listens on one connection until it fails.
func (p *poller) listenOnce(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		return err
	}
	p.kick() // notifications sent while not listening were lost
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		p.kick()
	}
}
