package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// genericPlanSQL makes the statements after it in its transaction run
// the plan PostgreSQL keeps for them, planned once per connection.
const genericPlanSQL = "SET LOCAL plan_cache_mode = force_generic_plan"

// queryGeneric runs sql with args after genericPlanSQL, in one round trip
// and one implicit transaction (nothing outlives it on the pooled
// connection), and calls scan for each row.
//
// Why: PostgreSQL plans a prepared statement with its arguments (a custom
// plan) until a generic plan looks no dearer, and for the statements run
// this way it never does, so it planned them anew on every call, although
// every custom plan was the generic one's index scan. pg_stat_statements
// with track_planning, 30,000 updates, patches and deletes: the gets read
// together (getsSQL, custom plans differing in the arrays' lengths) were
// planned 3,609 times for 3,604 calls, 975 ms of planning (objects has a
// dozen indexes to weigh) for 501 ms of running; then 14 plans in 5 ms.
// The poller's read of the log (pollSQL: a custom plan for a W near the
// log's end looks cheapest) runs this way too, for a replica's pool; the
// primary's background pool forces generic plans on all its statements
// anyway (see backgroundConns). TestPlannedOnce checks the counts and the
// plans kept.
func queryGeneric(ctx context.Context, db *pgxpool.Pool, scan func(pgx.Rows) error, sql string, args ...any) (err error) {
	var batch pgx.Batch
	batch.Queue(genericPlanSQL)
	batch.Queue(sql, args...)
	results := db.SendBatch(ctx, &batch)
	defer func() { err = errors.Join(err, results.Close()) }()
	if _, err := results.Exec(); err != nil {
		return err
	}
	rows, err := results.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
