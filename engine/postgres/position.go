package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// position is where the primary stood when a read began: its WAL position
// and the resourceVersion sequence's value. A replica that has replayed
// past lsn holds every write acknowledged before the read began, and seq
// is what a latest list on it reports (a replica's own copy of the
// sequence runs up to 32 values ahead: PostgreSQL logs sequences in
// advance, so only the primary's value is exact).
type position struct {
	lsn int64 // bytes since 0/0
	seq int64
}

// positionSQL reads the primary's position. The insert position, not the
// write position (pg_current_wal_lsn): with synchronous_commit off a
// commit is acknowledged, and visible, before its WAL is written, and the
// replica must wait for it too.
const positionSQL = `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint,
	CASE WHEN is_called THEN last_value ELSE 0 END FROM resource_version`

// positionTimeout bounds one position query: past it the read goes to the
// primary, which needs no position.
const positionTimeout = time.Second

// positions shares the primary's position among the reads that begin
// together: a read joins the next query that has not started yet, so the
// position it gets was taken after it began (one taken before could miss
// a write acknowledged just before the read), and under load one query
// serves every read that arrived during the previous one's round trip.
type positions struct {
	db      *pgxpool.Pool
	queries prometheus.Counter // the queries run
	mu      sync.Mutex
	next    *positionCall // the query that reads join until it starts
	running bool          // a goroutine runs queries while reads join them
}

// positionCall is one position query and the reads waiting for it.
type positionCall struct {
	done chan struct{} // closed once pos and err are set
	pos  position
	err  error
}

// take returns a position of the primary taken after take was called.
// Errors: ctx's, the query's.
func (p *positions) take(ctx context.Context) (position, error) {
	p.mu.Lock()
	c := p.next
	if c == nil {
		c = &positionCall{done: make(chan struct{})}
		p.next = c
	}
	if !p.running {
		p.running = true
		go p.run()
	}
	p.mu.Unlock()
	select {
	case <-c.done:
		return c.pos, c.err
	case <-ctx.Done():
		return position{}, ctx.Err()
	}
}

// run runs the queries that reads joined, one after another, until none
// waits.
func (p *positions) run() {
	for {
		p.mu.Lock()
		c := p.next
		p.next = nil
		if c == nil {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		c.pos, c.err = p.query()
		p.queries.Inc()
		close(c.done)
	}
}

// query reads the primary's position.
func (p *positions) query() (position, error) {
	ctx, cancel := context.WithTimeout(context.Background(), positionTimeout)
	defer cancel()
	var pos position
	if err := p.db.QueryRow(ctx, positionSQL).Scan(&pos.lsn, &pos.seq); err != nil {
		return position{}, fmt.Errorf("read the primary's WAL position: %w", err)
	}
	return pos, nil
}
