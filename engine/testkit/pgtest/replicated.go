package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/pgserver"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/migrations"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Replicated is a primary PostgreSQL server and a hot-standby streaming
// replica of it, started for one test from the local binaries (whatever
// TEST_DATABASE_URL says: a test that stops, pauses or promotes servers
// needs servers of its own), with a migrated database on both.
type Replicated struct {
	Primary, Replica *pgserver.Server
	// URL is the database on the primary, ReadURL the same on the
	// replica, and FailoverURL names both hosts with
	// target_session_attrs=read-write: whichever takes writes.
	URL, ReadURL, FailoverURL string
}

// database is the name of the migrated database of a Replicated.
const database = "dynapi"

// OpenReplicated starts a Replicated, stopped when tb ends. Commits are
// durable (synchronous_commit on), so that synchronous replication, when
// a test turns it on (SyncReplication), holds each acknowledged write on
// the replica. It calls tb.Fatalf when PostgreSQL cannot be started.
func OpenReplicated(tb testing.TB) *Replicated {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	primary, err := pgserver.Start(ctx, pgserver.Options{Ephemeral: true, Durable: true})
	if err != nil {
		tb.Fatalf("pgtest: start primary: %v", err)
	}
	tb.Cleanup(func() { primary.Stop() })
	r := &Replicated{Primary: primary}
	if err := r.migrate(ctx); err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	replica, err := pgserver.Start(ctx, pgserver.Options{Ephemeral: true, Primary: primary})
	if err != nil {
		tb.Fatalf("pgtest: start replica: %v", err)
	}
	tb.Cleanup(func() { replica.Stop() })
	r.Replica = replica
	if r.ReadURL, err = withDatabase(replica.URL(), database); err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	r.FailoverURL = failoverURL(primary, replica)
	return r
}

// migrate creates the database on the primary and migrates it.
func (r *Replicated) migrate(ctx context.Context) error {
	if err := r.Exec(ctx, r.Primary.URL(), "CREATE DATABASE "+quote(database)); err != nil {
		return err
	}
	var err error
	if r.URL, err = withDatabase(r.Primary.URL(), database); err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, r.URL)
	if err != nil {
		return fmt.Errorf("connect to primary: %w", err)
	}
	defer pool.Close()
	return postgres.Migrate(ctx, pool, migrations.FS)
}

// failoverURL names the database on both servers, the one that takes
// writes first.
func failoverURL(primary, replica *pgserver.Server) string {
	q := url.Values{"host": {primary.SocketDir() + "," + replica.SocketDir()},
		"target_session_attrs": {"read-write"}, "sslmode": {"disable"}}
	u := url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/" + database, RawQuery: q.Encode()}
	return u.String()
}

// Exec runs sql on the database at databaseURL. Errors: the database's.
func (r *Replicated) Exec(ctx context.Context, databaseURL, sql string) error {
	pool, err := pgxpool.New(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}

// SyncReplication makes every commit on the primary wait until the
// replica has it (synchronous_standby_names = '*'), so that a failover
// loses no acknowledged write. Errors: the database's.
func (r *Replicated) SyncReplication(ctx context.Context) error {
	if err := r.Exec(ctx, r.Primary.URL(), "ALTER SYSTEM SET synchronous_standby_names = '*'"); err != nil {
		return err
	}
	return r.Exec(ctx, r.Primary.URL(), "SELECT pg_reload_conf()")
}

// PauseReplay stops (pause) or resumes the replica's replay of the
// primary's WAL: it keeps receiving, and falls behind. Errors: the
// database's.
func (r *Replicated) PauseReplay(ctx context.Context, pause bool) error {
	fn := "pg_wal_replay_resume()"
	if pause {
		fn = "pg_wal_replay_pause()"
	}
	return r.Exec(ctx, r.ReadURL, "SELECT "+fn)
}
