package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// write runs the statement of one write, again if it collided with a GAP
// (see retryGaps). With the test hook beforeCommit, it runs in an explicit
// transaction that the hook can hold open or roll back.
func (s *Store) write(ctx context.Context, statement func(db dbtx) error) error {
	return retryGaps(func() error {
		if s.beforeCommit == nil {
			return statement(s.pool)
		}
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if err := statement(tx); err != nil {
				return err
			}
			return s.beforeCommit(ctx)
		})
	})
}
