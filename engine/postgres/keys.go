package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SigningKey returns the PEM key stored under name, storing one made by
// generate first when there is none. Processes that start together agree:
// the first insert wins and every one reads the stored key back. Errors:
// those of generate and of the database.
func (s *Store) SigningKey(ctx context.Context, name string, generate func() ([]byte, error)) ([]byte, error) {
	key, err := s.storedKey(ctx, name)
	if err == nil || !errors.Is(err, pgx.ErrNoRows) {
		return key, err
	}
	fresh, err := generate()
	if err != nil {
		return nil, err
	}
	const insert = `INSERT INTO service_account_keys (name, private_key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`
	if _, err := s.pool.Exec(ctx, insert, name, string(fresh)); err != nil {
		return nil, fmt.Errorf("store signing key: %w", err)
	}
	return s.storedKey(ctx, name)
}

// storedKey reads the key stored under name. Errors: pgx.ErrNoRows.
func (s *Store) storedKey(ctx context.Context, name string) ([]byte, error) {
	var key string
	err := s.pool.QueryRow(ctx, `SELECT private_key FROM service_account_keys WHERE name = $1`, name).Scan(&key)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("read signing key: %w", err)
	}
	return []byte(key), err
}
