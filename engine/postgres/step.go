package postgres

import (
	"context"
	"fmt"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/watch"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pollSQL reads the log after W ($1), with the compaction horizon and the
// sequence's value, in one snapshot. The LEFT JOIN returns one row of
// NULL events when the log has nothing after W. Bodies come only for the
// resources the process's watchers want ($3 lists them, $4: all of them):
// the others' rows only say that their resourceVersions are resolved.
const pollSQL = `
SELECT c.horizon, CASE WHEN s.is_called THEN s.last_value ELSE 0 END, e.*
FROM compaction c CROSS JOIN resource_version s LEFT JOIN LATERAL (
	SELECT resource_version, resource, namespace, name, type,
		CASE WHEN wanted THEN body END, CASE WHEN wanted THEN prev_body END,
		coalesce(stored_version, ''), coalesce(prev_stored_version, ''),
		CASE WHEN wanted THEN remainder END, CASE WHEN wanted THEN prev_remainder END
	FROM events, LATERAL (SELECT $4 OR resource = ANY($3::text[]) AS wanted) w
	WHERE resource_version > $1 ORDER BY resource_version LIMIT $2
) e ON true`

// fillSQL resolves resourceVersions that the log lacks.
//
// Why it works: an INSERT ... ON CONFLICT DO NOTHING that meets the
// uncommitted row of another transaction on the primary key waits for that
// transaction to end, then does nothing if it committed, or inserts the
// GAP if it rolled back. A writer that took the resourceVersion but has not
// inserted its event yet (a few microseconds within its one statement)
// loses: its insert then fails on events_pkey, and retryGaps runs the write
// again with a new resourceVersion. Either way, once fillSQL returns,
// every resourceVersion it was given is in the log for good.
const fillSQL = `INSERT INTO events (resource_version, type)
SELECT g, 'GAP' FROM unnest($1::bigint[]) AS g ORDER BY g
ON CONFLICT DO NOTHING`

// fetchSQL reads the given resourceVersions of the log.
const fetchSQL = `SELECT ` + logColumns + ` FROM events WHERE resource_version = ANY($1) ORDER BY resource_version`

// step reads one batch of the log after W, resolves its gaps, and publishes
// it. It reports whether more may follow at once.
func (p *poller) step(ctx context.Context) (bool, error) {
	w := p.events.ResourceVersion()
	in := p.events.Interest() // before the read: see watch.Interest
	t := p.router.choose(ctx, "poll")
	more, err := p.stepOn(ctx, t, w, in)
	if fallback(ctx, t, err) {
		// The replica failed, or showed commits the primary does not yet.
		p.router.retry("poll", t, err)
		return p.stepOn(ctx, target{}, w, in)
	}
	return more, err
}

// stepOn is step, with the log read on t.
func (p *poller) stepOn(ctx context.Context, t target, w int64, in watch.Interest) (bool, error) {
	b, err := p.read(ctx, t, w, p.columns(in), in.All())
	if err != nil {
		return false, err
	}
	if b.horizon > w {
		// Why: events this process had not published were compacted (it was
		// stalled for longer than the retention); its watchers must relist.
		p.events.Reset(b.horizon, tooOldWatch(w, b.horizon))
		return true, nil
	}
	full := len(b.rows) == pollBatch
	upTo := w
	if n := len(b.rows); n > 0 {
		upTo = b.rows[n-1].rv
	}
	if !full {
		// A list waits for the writes in flight below fillTo (never above
		// the sequence: those resourceVersions were not handed out).
		upTo = max(upTo, min(p.fillTo.Load(), b.seq))
	}
	missing := missingAfter(w, upTo, b.rows)
	if len(missing) > 0 {
		resolved, err := p.resolve(ctx, missing)
		if err != nil {
			return false, err
		}
		b.rows = mergeRows(b.rows, resolved)
	}
	if t.replica != nil {
		if err := p.visibleOnPrimary(ctx, w, b.rows); err != nil {
			return false, err
		}
	}
	p.publish(in, w, b.rows)
	return full || len(missing) > 0, nil
}

// batch is what pollSQL read.
type batch struct {
	horizon, seq int64
	rows         []logRow
}

// read runs pollSQL after w on t, with bodies for the resources (resource
// column values) wanted, or for all. On a replica, the batch's seq is the
// primary's (the replica's copy of the sequence runs ahead).
func (p *poller) read(ctx context.Context, t target, w int64, wanted []string, all bool) (batch, error) {
	if t.replica == nil {
		return readBatch(ctx, p.pool, w, wanted, all)
	}
	b, err := readBatch(ctx, t.replica.pool, w, wanted, all)
	b.seq = t.pos.seq
	return b, err
}

// readBatch runs pollSQL on db, with its generic plan (see queryGeneric).
func readBatch(ctx context.Context, db *pgxpool.Pool, w int64, wanted []string, all bool) (batch, error) {
	var b batch
	err := queryGeneric(ctx, db, func(rows pgx.Rows) error {
		var r nullLogRow
		if err := rows.Scan(append([]any{&b.horizon, &b.seq}, r.targets()...)...); err != nil {
			return err
		}
		if row, ok := r.row(); ok {
			b.rows = append(b.rows, row)
		}
		return nil
	}, pollSQL, w, pollBatch, wanted, all)
	if err != nil {
		return batch{}, fmt.Errorf("read events: %w", err)
	}
	return b, nil
}

// missingAfter returns the resourceVersions in (w, upTo] absent from rows
// (sorted), at most pollBatch of them.
func missingAfter(w, upTo int64, rows []logRow) []int64 {
	var missing []int64
	i := 0
	for rv := w + 1; rv <= upTo && len(missing) < pollBatch; rv++ {
		if i < len(rows) && rows[i].rv == rv {
			i++
			continue
		}
		missing = append(missing, rv)
	}
	return missing
}

// resolve fills the missing resourceVersions with GAPs, waiting for the
// transactions that hold them, and reads what they became.
func (p *poller) resolve(ctx context.Context, missing []int64) ([]logRow, error) {
	if err := p.fill(ctx, missing); err != nil {
		return nil, err
	}
	rows, err := p.pool.Query(ctx, fetchSQL, missing)
	if err != nil {
		return nil, fmt.Errorf("read resolved events: %w", err)
	}
	defer rows.Close()
	var out []logRow
	for rows.Next() {
		var r logRow
		if err := rows.Scan(r.targets()...); err != nil {
			return nil, fmt.Errorf("read resolved events: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// fill runs fillSQL.
func (p *poller) fill(ctx context.Context, missing []int64) error {
	if _, err := p.pool.Exec(ctx, fillSQL, missing); err != nil {
		return fmt.Errorf("fill gaps in the events log: %w", err)
	}
	return nil
}

// mergeRows merges two lists sorted by resourceVersion.
func mergeRows(a, b []logRow) []logRow {
	out := make([]logRow, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].rv < b[0].rv {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// publish publishes the events of rows, sorted, that follow W without a
// hole, and moves W to the last of them. (A resourceVersion can still be
// missing after resolve if the log was compacted meanwhile: the next step
// will tell.)
func (p *poller) publish(in watch.Interest, w int64, rows []logRow) {
	var events []engine.Event
	next := w + 1
	for _, r := range rows {
		if r.rv != next {
			break
		}
		if r.typ != gapType && in.Wants(parseResource(r.resource)) {
			ev := r.event()
			if p.open != nil {
				p.open(&ev)
			}
			events = append(events, ev)
		}
		next++
	}
	p.events.Publish(in, events, next-1)
}

// columns returns resourceColumns(in), made once per generation of the
// Interest. Only the poller's goroutine calls it.
func (p *poller) columns(in watch.Interest) []string {
	if p.wanted.gen != in.Generation() || p.wanted.columns == nil {
		p.wanted.gen, p.wanted.columns = in.Generation(), resourceColumns(in)
	}
	return p.wanted.columns
}

// resourceColumns returns the resource column values of what in wants.
func resourceColumns(in watch.Interest) []string {
	cols := make([]string, 0, len(in.Resources()))
	for gr := range in.Resources() {
		cols = append(cols, resourceColumn(gr))
	}
	return cols
}
