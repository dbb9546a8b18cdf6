package postgres

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/jackc/pgx/v5/pgxpool"
)

// TryLock takes the lock name, shared by every process on the database,
// unless another holder has it (ok false). It is a session advisory lock
// on a connection kept until release: a process that dies releases its
// locks with its connections.
func (s *Store) TryLock(ctx context.Context, name string) (release func(), ok bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("acquire connection: %w", err)
	}
	key := lockKey(name)
	if ok, err = tryLock(ctx, conn, key); err != nil || !ok {
		conn.Release()
		return nil, false, err
	}
	return func() {
		unlock(ctx, conn, key)
		conn.Release()
	}, true, nil
}

// lockKey is the advisory lock key of a lock name.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("dynapi/" + name))
	return int64(h.Sum64())
}

// tryLock takes the session advisory lock key on conn, unless another
// session holds it.
func tryLock(ctx context.Context, conn *pgxpool.Conn, key int64) (bool, error) {
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&locked); err != nil {
		return false, fmt.Errorf("lock: %w", err)
	}
	return locked, nil
}

// unlock gives back the session advisory lock key taken on conn, even
// after ctx ended. If it cannot, it closes the connection: that releases
// the lock, and the pool drops the connection.
func unlock(ctx context.Context, conn *pgxpool.Conn, key int64) {
	ctx = context.WithoutCancel(ctx)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", key); err != nil {
		conn.Conn().Close(ctx)
	}
}
