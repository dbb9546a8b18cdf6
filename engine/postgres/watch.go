package postgres

import (
	"context"
	"fmt"

	"github.com/dynapi/dynapi/engine"
)

// Watch streams every change to opts.Resource (in opts.Namespace, or all
// namespaces) after opts.ResourceVersion, in resourceVersion order, each
// once, until ctx ends; see engine.Store. Changes up to the process's
// ring of recent events are read from the log first. Bodies are as Get
// returns them; Prev is the state before a MODIFIED or DELETED. Errors:
// Expired when opts.ResourceVersion is older than the history kept;
// Timeout when the process does not reach it within 3 s; ServiceUnavailable
// before the schema is migrated.
func (s *Store) Watch(ctx context.Context, opts engine.WatchOptions) (<-chan engine.Event, error) {
	w, ok, err := s.poller.await(ctx, opts.ResourceVersion, s.freshWait)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, tooLarge(opts.ResourceVersion, w)
	}
	var horizon int64
	if err := s.pool.QueryRow(ctx, "SELECT horizon FROM compaction").Scan(&horizon); err != nil {
		return nil, fmt.Errorf("read the compaction horizon: %w", err)
	}
	if opts.ResourceVersion < horizon {
		return nil, tooOldWatch(opts.ResourceVersion, horizon)
	}
	return s.events.Subscribe(ctx, opts), nil
}

// replayBatch is how many events replay reads per statement.
const replayBatch = 500

// replaySQL reads a page of the log of one resource ($3, all when empty)
// and namespace ($4, all when empty) in ($1, $2], with the compaction
// horizon in the same snapshot.
const replaySQL = `
SELECT c.horizon, e.* FROM compaction c LEFT JOIN LATERAL (
	SELECT ` + logColumns + ` FROM events
	WHERE resource_version > $1 AND resource_version <= $2 AND type <> 'GAP'
		AND ($3 = '' OR resource = $3) AND ($4 = '' OR namespace = $4)
	ORDER BY resource_version LIMIT $5
) e ON true`

// replay is the Broadcaster's Replayer: it reads the log page by page, and
// hands each page to each once the connection is released (each may wait
// for a slow watcher). Errors: Expired when events after after were compacted.
func (s *Store) replay(ctx context.Context, opts engine.WatchOptions, after, upTo int64, each func(engine.Event) error) error {
	resource := ""
	if opts.Resource != (engine.GroupResource{}) {
		resource = resourceColumn(opts.Resource)
	}
	for after < upTo {
		horizon, page, err := s.replayPage(ctx, resource, opts.Namespace, after, upTo)
		if err != nil {
			return err
		}
		if after < horizon {
			return tooOldWatch(after, horizon)
		}
		for _, r := range page {
			ev := r.event()
			s.openEvent(&ev)
			if err := each(ev); err != nil {
				return err
			}
		}
		if len(page) < replayBatch {
			return nil
		}
		after = page[len(page)-1].rv
	}
	return nil
}

// replayPage runs replaySQL.
func (s *Store) replayPage(ctx context.Context, resource, namespace string, after, upTo int64) (int64, []logRow, error) {
	rows, err := s.pool.Query(ctx, replaySQL, after, upTo, resource, namespace, replayBatch)
	if err != nil {
		return 0, nil, fmt.Errorf("replay events: %w", err)
	}
	defer rows.Close()
	var horizon int64
	var page []logRow
	for rows.Next() {
		var r nullLogRow
		if err := rows.Scan(append([]any{&horizon}, r.targets()...)...); err != nil {
			return 0, nil, fmt.Errorf("replay events: %w", err)
		}
		if row, ok := r.row(); ok {
			page = append(page, row)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, nil, fmt.Errorf("replay events: %w", err)
	}
	return horizon, page, nil
}
