package postgres

import (
	"context"
	"time"
)

// Compact runs one compaction of s now.
func Compact(ctx context.Context, s *Store) error { return s.compact(ctx) }

// SetBeforeCommit makes every write of s run in an explicit transaction
// and call f before its COMMIT; an error from f rolls the write back. Set
// it before the writes.
func SetBeforeCommit(s *Store, f func(ctx context.Context) error) { s.beforeCommit = f }

// SetFreshWait sets how long s waits for a resourceVersion not reached yet.
func SetFreshWait(s *Store, d time.Duration) { s.freshWait = d }
