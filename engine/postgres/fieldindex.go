package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// createFieldIndexSQL builds one expression index; {name}, {expr} and
// {resource} are rendered by fieldIndexSQL.
const createFieldIndexSQL = `CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON objects ({expr}) WHERE resource = {resource}`

// fieldIndexLockKey makes one session at a time build field indexes: two
// concurrent builds on one table wait for each other's snapshots and
// deadlock.
const fieldIndexLockKey int64 = 0x64796e6170690004 // "dynapi" 0004

// fieldIndexRetry is how often a build waits for another session's to end.
const fieldIndexRetry = 100 * time.Millisecond

// EnsureFieldIndexes makes, for each dotted body path in paths
// ("spec.color"), an expression index on the field's text (fieldTextSQL)
// over resource's objects, unless it exists. It builds them
// CONCURRENTLY: writes go on meanwhile, and the call takes as long as the
// builds, so run it in the background. Several processes may call it at
// once: they take turns. An index left invalid by a failed or cancelled
// build is rebuilt. Errors: those of ctx and of the builds, joined.
func (s *Store) EnsureFieldIndexes(ctx context.Context, resource engine.GroupResource, paths []string) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	if err := lockFieldIndexes(ctx, conn); err != nil {
		return err
	}
	defer unlock(ctx, conn, fieldIndexLockKey)
	var errs []error
	for _, p := range paths {
		if err := ensureFieldIndex(ctx, conn, resource, p); err != nil {
			errs = append(errs, fmt.Errorf("index %s field %s: %w", resource, p, err))
		}
	}
	return errors.Join(errs...)
}

// lockFieldIndexes takes the session lock of index builds. Why a try-lock
// in a loop: a session blocked in pg_advisory_lock holds a snapshot, which
// the build holding the lock waits for: a deadlock.
func lockFieldIndexes(ctx context.Context, conn *pgxpool.Conn) error {
	for {
		locked, err := tryLock(ctx, conn, fieldIndexLockKey)
		if err != nil {
			return fmt.Errorf("field indexes: %w", err)
		}
		if locked {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(fieldIndexRetry):
		}
	}
}

// ensureFieldIndex builds one index unless it exists. An invalid one is
// a build that failed or was cancelled (builds take turns under the lock,
// which the caller holds): it is dropped and built again, once.
func ensureFieldIndex(ctx context.Context, conn *pgxpool.Conn, resource engine.GroupResource, path string) error {
	name, sql, err := fieldIndexSQL(resource, path)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		// Exec without arguments: one simple-protocol statement, outside
		// any transaction block, as CONCURRENTLY requires.
		if _, err := conn.Exec(ctx, sql); err != nil && !concurrentlyCreated(err) {
			return fmt.Errorf("create index: %w", err)
		}
		var valid bool
		err := conn.QueryRow(ctx, `SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)`, name).Scan(&valid)
		if err != nil || valid {
			return err
		}
		if attempt > 0 {
			return fmt.Errorf("index %s is invalid after a rebuild", name)
		}
		if _, err := conn.Exec(ctx, "DROP INDEX CONCURRENTLY IF EXISTS "+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("drop invalid index: %w", err)
		}
	}
}

// concurrentlyCreated reports whether err says that another session
// created the index at the same time (one that does not take the lock,
// such as an operator's).
func concurrentlyCreated(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "42P07")
}

// fieldIndexSQL renders the index of resource's field at path, and its
// name. DDL takes no bind parameters: the name is a hash (a fixed
// alphabet), and the path's keys and the resource are quoted literals.
// Errors: BadRequest for an empty path or a NUL byte.
func fieldIndexSQL(resource engine.GroupResource, path string) (string, string, error) {
	column := resourceColumn(resource)
	if path == "" || strings.ContainsRune(path+column, 0) {
		return "", "", engine.Errorf(engine.CodeBadRequest, "field index: bad path %q", path)
	}
	sum := sha256.Sum256([]byte(column + "\x00" + path))
	name := "objects_field_" + hex.EncodeToString(sum[:10])
	keys := strings.Split(path, ".")
	for i, k := range keys {
		keys[i] = quoteLiteral(k)
	}
	sql := strings.NewReplacer("{name}", pgx.Identifier{name}.Sanitize(),
		"{expr}", fieldText("ARRAY["+strings.Join(keys, ", ")+"]::text[]"),
		"{resource}", quoteLiteral(column)).Replace(createFieldIndexSQL)
	return name, sql, nil
}

// quoteLiteral quotes s as an escape string literal (E'...'), in which
// backslashes and quotes are escaped whatever standard_conforming_strings is.
func quoteLiteral(s string) string {
	return "E'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}
