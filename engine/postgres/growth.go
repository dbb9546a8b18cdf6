package postgres

import "context"

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
// ANALYZE of a small table takes milliseconds and invalidates the cached
// plans, which are then made again on the primary key.
func (s *Store) analyzeWhileSmall(ctx context.Context) {
	for {
		select {
		case <-s.grown:
		case <-ctx.Done():
			return
		}
		if err := analyzeIf(ctx, s.pool, smallTableSQL, smallTable); err != nil && ctx.Err() == nil {
			s.opts.Logger.Warn("gather the statistics of objects", "err", err)
		}
	}
}
