package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/dynapi/dynapi/engine"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// baselineResource is the resource column of every Baseline row, and the
// resource named by its NotFound errors.
var baselineResource = engine.GroupResource{Resource: "baseline"}

// Baseline does with plain SQL what dynapi's writes and reads do, for the
// load tool to compare against: it is the physical limit. It stores JSON
// bodies in a scratch table shaped like objects (the same columns, keys,
// collations and indexes, copied from the migrated schema), one statement
// per call, with no events log, no resourceVersion sequence, no advisory
// lock and no notification. Rows live in one namespace ("") and are known
// by name. It is safe for concurrent use.
type Baseline struct {
	store *Store // for its pool, opened as Open opens the server's
	table string // quoted name of the scratch table
	sql   baselineSQL
}

// baselineSQL holds the statements, which name the scratch table.
type baselineSQL struct {
	insert, get, update, delete, list, listLabels string
}

// OpenBaseline connects to the database at databaseURL with the Store's pool
// settings and creates an empty scratch table like objects; the database
// must be migrated. Close drops the table.
func OpenBaseline(ctx context.Context, databaseURL string) (*Baseline, error) {
	s, err := Open(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	b := &Baseline{store: s, table: pgx.Identifier{baselineTableName()}.Sanitize()}
	b.sql = newBaselineSQL(b.table)
	// INCLUDING ALL copies the primary key, collations, defaults and the
	// GIN indexes on labels, so the baseline pays the same index upkeep.
	if _, err := s.pool.Exec(ctx, "CREATE TABLE "+b.table+" (LIKE objects INCLUDING ALL)"); err != nil {
		s.Close()
		return nil, fmt.Errorf("create baseline table: %w", err)
	}
	return b, nil
}

func newBaselineSQL(table string) baselineSQL {
	const key = `resource = 'baseline' AND namespace = '' AND name = $1`
	return baselineSQL{
		insert: `INSERT INTO ` + table + ` (resource, namespace, name, resource_version, stored_version, body, labels)
			VALUES ('baseline', '', $1, 1, 'v1', $2::jsonb, $3::jsonb)`,
		get: `SELECT body FROM ` + table + ` WHERE ` + key,
		update: `UPDATE ` + table + ` SET body = $2::jsonb, labels = $3::jsonb,
			resource_version = resource_version + 1 WHERE ` + key,
		delete:     `DELETE FROM ` + table + ` WHERE ` + key,
		list:       `SELECT body FROM ` + table + ` WHERE resource = 'baseline' AND namespace = '' ORDER BY name`,
		listLabels: `SELECT body FROM ` + table + ` WHERE resource = 'baseline' AND namespace = '' AND labels @> $1::jsonb ORDER BY name`,
	}
}

// Close drops the scratch table and closes the pool.
func (b *Baseline) Close(ctx context.Context) error {
	defer b.store.Close()
	if _, err := b.store.pool.Exec(ctx, "DROP TABLE IF EXISTS "+b.table); err != nil {
		return fmt.Errorf("drop baseline table: %w", err)
	}
	return nil
}

// Insert stores body (valid JSON) under name, with its metadata.labels in
// the labels column. Errors: AlreadyExists.
func (b *Baseline) Insert(ctx context.Context, name string, body []byte) error {
	_, err := b.store.pool.Exec(ctx, b.sql.insert, name, body, columnsOf(body).labels)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == uniqueViolation {
		return engine.NewAlreadyExists(baselineResource, name)
	}
	return b.wrap("insert", name, err)
}

// Get returns the body stored under name, as jsonb prints it. Errors: NotFound.
func (b *Baseline) Get(ctx context.Context, name string) ([]byte, error) {
	var body []byte
	err := b.store.pool.QueryRow(ctx, b.sql.get, name).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, engine.NewNotFound(baselineResource, name)
	}
	return body, b.wrap("get", name, err)
}

// Update replaces the body stored under name. Errors: NotFound.
func (b *Baseline) Update(ctx context.Context, name string, body []byte) error {
	tag, err := b.store.pool.Exec(ctx, b.sql.update, name, body, columnsOf(body).labels)
	if err != nil {
		return b.wrap("update", name, err)
	}
	if tag.RowsAffected() == 0 {
		return engine.NewNotFound(baselineResource, name)
	}
	return nil
}

// Delete removes the row stored under name. Errors: NotFound.
func (b *Baseline) Delete(ctx context.Context, name string) error {
	tag, err := b.store.pool.Exec(ctx, b.sql.delete, name)
	if err != nil {
		return b.wrap("delete", name, err)
	}
	if tag.RowsAffected() == 0 {
		return engine.NewNotFound(baselineResource, name)
	}
	return nil
}

// List reads every body, in name order, whose labels hold all of labels
// (what a labelSelector of k=v terms selects, through the same GIN index);
// nil or empty labels read all rows. It returns how many rows it read.
func (b *Baseline) List(ctx context.Context, labels map[string]string) (int, error) {
	sql, args := b.sql.list, []any(nil)
	if len(labels) > 0 {
		sql, args = b.sql.listLabels, []any{labels}
	}
	rows, err := b.store.pool.Query(ctx, sql, args...)
	if err != nil {
		return 0, fmt.Errorf("list %s: %w", b.table, err)
	}
	defer rows.Close()
	n := 0
	var body []byte
	for rows.Next() {
		if err := rows.Scan(&body); err != nil {
			return n, fmt.Errorf("list %s: %w", b.table, err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("list %s: %w", b.table, err)
	}
	return n, nil
}

// wrap wraps a database error as "verb table/name: err"; nil stays nil.
func (b *Baseline) wrap(verb, name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %s/%s: %w", verb, b.table, name, err)
}

// baselineTableName returns a fresh name, so that runs can share a database.
func baselineTableName() string {
	buf := make([]byte, 8)
	rand.Read(buf) // never fails
	return "baseline_" + hex.EncodeToString(buf)
}
