package postgres

import (
	"context"
	"fmt"
	"io/fs"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrateLockKey serializes migrators across processes.
const migrateLockKey int64 = 0x64796e6170690002 // "dynapi" 0002

// createMigrationsTable is the one piece of schema the migrator owns.
const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	name       text PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
)`

// Migrate applies every *.sql file of fsys, in name order, that the database
// has not recorded in schema_migrations; each file runs in its own
// transaction with its record. Processes starting at once are safe: they
// take turns under a session advisory lock.
func Migrate(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS) error {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return fmt.Errorf("list migrations: %w", err)
	}
	slices.Sort(names)
	pc, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection: %w", err)
	}
	// Why hijack: the session lock is released by closing the connection,
	// whatever happens, instead of returning a locked one to the pool.
	conn := pc.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrateLockKey); err != nil {
		return fmt.Errorf("lock migrations: %w", err)
	}
	applied, err := appliedMigrations(ctx, conn)
	if err != nil {
		return err
	}
	for _, name := range names {
		if !applied[name] {
			if err := applyMigration(ctx, conn, fsys, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// appliedMigrations returns the names recorded in schema_migrations.
func appliedMigrations(ctx context.Context, conn *pgx.Conn) (map[string]bool, error) {
	if _, err := conn.Exec(ctx, createMigrationsTable); err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	rows, _ := conn.Query(ctx, "SELECT name FROM schema_migrations")
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	applied := make(map[string]bool, len(names))
	for _, name := range names {
		applied[name] = true
	}
	return applied, nil
}

// applyMigration runs one file and records it, in one transaction.
func applyMigration(ctx context.Context, conn *pgx.Conn, fsys fs.FS, name string) error {
	sql, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("read migration %s: %w", name, err)
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		// No arguments: pgx sends the simple protocol, which allows many statements.
		if _, err := tx.Exec(ctx, string(sql)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (name) VALUES ($1)", name)
		return err
	})
	if err != nil {
		return fmt.Errorf("apply migration %s: %w", name, err)
	}
	return nil
}
