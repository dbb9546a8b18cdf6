package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/dynapi/dynapi/engine"
)

// watchSQL reads the events of one resource after a resourceVersion.
// Temporary: replaced by the per-process poller.
const watchSQL = `SELECT resource_version, namespace, name, type, body, coalesce(prev_body, 'null'),
	coalesce(stored_version, ''), coalesce(prev_stored_version, '')
FROM events WHERE resource_version > $1 AND resource = $2 AND ($3 = '' OR namespace = $3) AND type <> 'GAP'
ORDER BY resource_version LIMIT 1000`

// Watch streams the changes of opts.Resource after opts.ResourceVersion.
// Temporary minimal version: polls, and does not yet wait for gaps.
func (s *Store) Watch(ctx context.Context, opts engine.WatchOptions) (<-chan engine.Event, error) {
	ch := make(chan engine.Event, 100)
	go func() {
		defer close(ch)
		from := opts.ResourceVersion
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			evs, err := s.readEvents(ctx, opts, from)
			if err != nil {
				if ctx.Err() == nil {
					ch <- engine.Event{Type: engine.EventError, Err: err}
				}
				return
			}
			for _, ev := range evs {
				select {
				case ch <- ev:
					from = ev.Object.ResourceVersion
				case <-ctx.Done():
					return
				}
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

func (s *Store) readEvents(ctx context.Context, opts engine.WatchOptions, from int64) ([]engine.Event, error) {
	rows, err := s.pool.Query(ctx, watchSQL, from, resourceColumn(opts.Resource), opts.Namespace)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	var out []engine.Event
	for rows.Next() {
		var ev engine.Event
		var typ string
		var prev []byte
		ev.Object.Key.Resource = opts.Resource
		if err := rows.Scan(&ev.Object.ResourceVersion, &ev.Object.Key.Namespace, &ev.Object.Key.Name, &typ,
			&ev.Object.Body, &prev, &ev.Object.StoredVersion, &ev.PrevStoredVersion); err != nil {
			return nil, fmt.Errorf("read events: %w", err)
		}
		ev.Type = engine.EventType(typ)
		ev.Object.Body = fromJSONB(ev.Object.Body)
		if string(prev) != "null" {
			ev.Prev = fromJSONB(prev)
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}
