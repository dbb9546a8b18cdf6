// Package pgtest gives each test a fresh PostgreSQL database with dynapi's
// migrations applied. It uses TEST_DATABASE_URL when set; otherwise it starts
// one throw-away server per test binary with pgserver. A missing PostgreSQL
// fails the test, never skips it: a green run means the storage was tested.
//
// Test binaries call Main from TestMain so that the server and the template
// database are removed at exit. (Without it, a throw-away server still dies
// with the test binary, but its temporary directory stays behind.)
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/pgserver"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/migrations"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// env is the shared state of one test binary, set up once by the first Open.
type env struct {
	server   *pgserver.Server // nil with TEST_DATABASE_URL
	adminURL string           // the server's maintenance database
	admin    *pgxpool.Pool    // creates and drops databases
	template string           // migrated database that Open copies
}

var (
	setupOnce sync.Once
	shared    *env
	setupErr  error
)

// Open returns the URL of a new database holding the migrated schema, and
// drops it when tb ends. It calls tb.Fatalf when PostgreSQL is unavailable.
func Open(tb testing.TB) string {
	tb.Helper()
	return create(tb, func(e *env) string { return " TEMPLATE " + quote(e.template) })
}

// OpenEmpty is Open without the schema: for tests of what happens before
// the migrations run.
func OpenEmpty(tb testing.TB) string {
	tb.Helper()
	return create(tb, func(*env) string { return "" })
}

// create creates a database with the options clause returns, dropped when tb ends.
func create(tb testing.TB, clause func(*env) string) string {
	tb.Helper()
	setupOnce.Do(func() { shared, setupErr = setup() })
	if setupErr != nil {
		tb.Fatalf("pgtest: %v", setupErr)
	}
	name := randomName("dynapi_test_")
	ctx := context.Background()
	if _, err := shared.admin.Exec(ctx, "CREATE DATABASE "+quote(name)+clause(shared)); err != nil {
		tb.Fatalf("pgtest: create database: %v", err)
	}
	tb.Cleanup(func() {
		if _, err := shared.admin.Exec(ctx, "DROP DATABASE "+quote(name)+" WITH (FORCE)"); err != nil {
			tb.Errorf("pgtest: drop database: %v", err)
		}
	})
	u, err := withDatabase(shared.adminURL, name)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return u
}

// Main runs the tests, then drops the template database and stops the
// throw-away server, and exits with the tests' status.
func Main(m *testing.M) {
	code := m.Run()
	if shared != nil {
		if err := shared.close(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	os.Exit(code)
}

// setup connects to TEST_DATABASE_URL or starts a server, then creates and
// migrates the template database.
func setup() (*env, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e := &env{adminURL: os.Getenv("TEST_DATABASE_URL"), template: randomName("dynapi_template_")}
	if e.adminURL == "" {
		s, err := pgserver.Start(ctx, pgserver.Options{Ephemeral: true})
		if err != nil {
			return nil, fmt.Errorf("%w (tests also accept TEST_DATABASE_URL)", err)
		}
		e.server, e.adminURL = s, s.URL()
	}
	admin, err := pgxpool.New(ctx, e.adminURL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", e.adminURL, err)
	}
	e.admin = admin
	if err := e.migrateTemplate(ctx); err != nil {
		return nil, errors.Join(err, e.close())
	}
	return e, nil
}

// migrateTemplate creates the template database and applies the migrations.
func (e *env) migrateTemplate(ctx context.Context) error {
	if _, err := e.admin.Exec(ctx, "CREATE DATABASE "+quote(e.template)); err != nil {
		return fmt.Errorf("create template database: %w", err)
	}
	u, err := withDatabase(e.adminURL, e.template)
	if err != nil {
		return err
	}
	// A new database cannot copy a template that has open connections.
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		return fmt.Errorf("connect to template: %w", err)
	}
	defer pool.Close()
	return postgres.Migrate(ctx, pool, migrations.FS)
}

// close drops the template database and stops the server.
func (e *env) close() error {
	ctx := context.Background()
	_, err := e.admin.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(e.template)+" WITH (FORCE)")
	e.admin.Close()
	if e.server != nil {
		if stopErr := e.server.Stop(); stopErr != nil && err == nil {
			err = stopErr
		}
	}
	return err
}

// withDatabase returns databaseURL (a URL or key=value string) pointed at db.
func withDatabase(databaseURL, db string) (string, error) {
	if !strings.HasPrefix(databaseURL, "postgres://") && !strings.HasPrefix(databaseURL, "postgresql://") {
		return databaseURL + " dbname=" + db, nil
	}
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", fmt.Errorf("parse database URL: %w", err)
	}
	u.Path = "/" + db
	return u.String(), nil
}

// randomName returns prefix and 16 random hex digits.
func randomName(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b) // never fails
	return prefix + hex.EncodeToString(b)
}

// quote quotes an identifier.
func quote(name string) string {
	return pgx.Identifier{name}.Sanitize()
}

// Exec runs statements, one after the other, on the database at
// databaseURL: for tests and benchmarks that arrange rows the API would
// take long to write. It calls tb.Fatalf on the first error.
func Exec(tb testing.TB, databaseURL string, sql ...string) {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		tb.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	for _, q := range sql {
		if _, err := conn.Exec(ctx, q); err != nil {
			tb.Fatalf("pgtest: %s: %v", q, err)
		}
	}
}
