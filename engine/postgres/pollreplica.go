package postgres

import (
	"context"
	"errors"
	"fmt"
)

// errAheadOfPrimary says that a replica showed commits that the primary
// does not show yet.
//
// Why it happens: a commit's WAL is flushed, and streamed, before the
// committing session leaves the primary's list of running transactions;
// until then (a moment, or the whole wait of synchronous replication) a
// replica that replayed it shows the commit and the primary does not. A
// watermark moved on what the replica showed would let a watch catch up
// from the primary's history, or a list read the primary at that
// resourceVersion, without the commit: an event lost for good.
var errAheadOfPrimary = errors.New("the replica shows commits the primary does not show yet")

// visibleSQL counts the log rows in ($1, $2] that the primary shows.
const visibleSQL = `SELECT count(*) FROM events WHERE resource_version > $1 AND resource_version <= $2`

// visibleOnPrimary checks that the primary shows every row of rows (read
// on a replica, gaps resolved) that publish would publish: those that
// follow w without a hole. One count on the primary key, without bodies.
// Errors: errAheadOfPrimary; the primary's.
func (p *poller) visibleOnPrimary(ctx context.Context, w int64, rows []logRow) error {
	end := w
	for _, r := range rows {
		if r.rv != end+1 {
			break
		}
		end = r.rv
	}
	if end == w {
		return nil
	}
	var n int64
	if err := p.pool.QueryRow(ctx, visibleSQL, w, end).Scan(&n); err != nil {
		return fmt.Errorf("count events on the primary: %w", err)
	}
	if n != end-w {
		return errAheadOfPrimary
	}
	return nil
}
