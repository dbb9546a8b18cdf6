package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// growthCheckEvery is how many creates of this process pass between two
// looks at the size PostgreSQL's statistics give objects. Only creates
// count: updates and deletes do not grow the table, and counting them
// made a cluster that stays under smallTable objects ANALYZE every 1,000
// writes for ever (15 ANALYZEs in 5,000 creates, updates and deletes, each
// reading the whole table).
const growthCheckEvery = 1000

// smallTable is the row count below which statistics are gathered again
// at every growthCheckEvery writes: past it, the plans of point lookups
// no longer flip, and compaction's check (analyzeIfStale) and autovacuum
// keep up.
const smallTable = 10000

// smallTableSQL says whether PostgreSQL believes objects is small.
const smallTableSQL = `SELECT reltuples < $1 FROM pg_class WHERE oid = 'objects'::regclass`

// noteCreate counts a create, and every growthCheckEvery creates wakes
// analyzeWhileSmall without waiting for it.
func (s *Store) noteCreate() {
	if s.created.Add(1)%growthCheckEvery == 0 {
		select {
		case s.grown <- struct{}{}:
		default: // a check is pending already
		}
	}
}

// analyzeWhileSmall gathers the statistics of objects while PostgreSQL
// believes it small, each time noteCreate says the table may have grown,
// until ctx ends. Why: a connection's cached generic plan of a write
// statement is made with the statistics of the moment. On a fresh
// database they say one page (CREATE INDEX at start records the size of
// the table it indexed), so the plan checks the namespace and the name by
// scanning the whole table, and keeps doing so, slower with every row,
// until the statistics change (autovacuum: a minute or more; compaction:
// 10 s): a bulk load right after start ran at 40% of its speed
// (PostgreSQL's CPU per create 150 µs → 400–600 µs over 10,000 creates).
// A new count invalidates the cached plans, which are then made again on
// the primary key. Only the count matters here: see countRows.
func (s *Store) analyzeWhileSmall(ctx context.Context) {
	for {
		select {
		case <-s.grown:
		case <-ctx.Done():
			return
		}
		if err := s.countRowsWhileSmall(ctx); err != nil && ctx.Err() == nil {
			s.opts.Logger.Warn("gather the statistics of objects", "err", err)
		}
	}
}

// countRowsWhileSmall runs countRows when PostgreSQL believes objects small.
func (s *Store) countRowsWhileSmall(ctx context.Context) error {
	var small bool
	if err := s.pool.QueryRow(ctx, smallTableSQL, smallTable).Scan(&small); err != nil {
		return fmt.Errorf("check the statistics of objects: %w", err)
	}
	if !small {
		return nil
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return countRows(ctx, tx) })
}

// countRows brings PostgreSQL's row count of objects (pg_class.reltuples,
// what the plans of point lookups turn on) up to date at the least cost:
// the key columns only, from a sample of 300 rows (statistics target 1).
// Why: a whole ANALYZE of the table also sorts a sample of up to 30,000
// bodies to describe the body column; measured on 30,000 Widgets of
// 1.6 KB, 540–970 ms against 7–13 ms for this, with the same count
// (30,055 for 30,033 rows). Ran every 1,000 creates of each process up to
// 10,000 objects, the whole ANALYZE took a share of PostgreSQL's CPU in
// every bulk load. The full statistics (label selectors' plans need those
// of labels) still come from compaction's analyzeIfStale and autovacuum: a
// column list does not reset the count of changes they go by.
func countRows(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "SET LOCAL default_statistics_target = 1"); err != nil {
		return fmt.Errorf("analyze objects: %w", err)
	}
	if _, err := tx.Exec(ctx, "ANALYZE objects (resource, namespace, name)"); err != nil {
		return fmt.Errorf("analyze objects: %w", err)
	}
	return nil
}
