// Package postgres implements engine.Store on PostgreSQL: one JSONB row per
// object, a cluster-wide resourceVersion from one sequence, and an events log
// written in the same statement as every change. It is the only package of
// dynapi that talks to PostgreSQL; the schema lives in /migrations.
package postgres

import (
	"context"
	"fmt"
	"io/fs"
	"runtime"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// writeLockKey is the advisory lock every write holds in shared mode from
// before it takes its resourceVersion until it commits.
//
// Why: transactions can commit out of resourceVersion order (a write that
// took 11 may commit before the one that took 10). A consistent list takes
// this key exclusively for an instant before taking its snapshot: no write
// is then in flight, so every resourceVersion up to the sequence's current
// value is either committed and visible, or will never exist.
const writeLockKey int64 = 0x64796e6170690001 // "dynapi" 0001

// Store is an engine.Store backed by a PostgreSQL connection pool. It is safe
// for concurrent use, and several processes may share one database.
type Store struct {
	pool *pgxpool.Pool
}

var _ engine.Store = (*Store)(nil)

// dbtx is what the queries need, served by both *pgxpool.Pool and pgx.Tx.
type dbtx interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Open connects to the database at databaseURL (a URL or key=value string)
// with a pool sized for the machine, unless the URL sets pool_max_conns.
// It fails when the database cannot be reached.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse database URL: %w", err)
	}
	if !strings.Contains(databaseURL, "pool_max_conns") {
		cfg.MaxConns = int32(max(4, 4*runtime.GOMAXPROCS(0)))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("create connection pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return &Store{pool: pool}, nil
}

// Close closes every connection; in-flight calls fail.
func (s *Store) Close() {
	s.pool.Close()
}

// Ping checks that the database answers, for readiness probes.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

// Migrate applies the migrations of fsys that the database lacks; see Migrate.
func (s *Store) Migrate(ctx context.Context, fsys fs.FS) error {
	return Migrate(ctx, s.pool, fsys)
}
