package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// write runs the statement of one write, with the writes of other requests
// in flight (see batcher), again if it collided with a GAP (see
// retryGaps). With the test hook beforeCommit, it runs alone in an explicit
// transaction that the hook can hold open or roll back.
func (s *Store) write(ctx context.Context, st statement) error {
	if s.beforeCommit == nil {
		return s.writes.do(ctx, s.closed, st)
	}
	return retryGaps(func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if err := st.run(ctx, tx); err != nil {
				return err
			}
			return s.beforeCommit(ctx)
		})
	})
}
