package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynapi/dynapi/engine/internal/pgtest"
	"github.com/dynapi/dynapi/engine/postgres"
)

// TestTryLock: a lock is held by one Store at a time across processes
// (two Stores on one database), is per name, and goes back on release and
// when its holder closes.
func TestTryLock(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Open(t)
	a, b := openStore(t, url), openStore(t, url)
	tryLock := func(who string, s *postgres.Store, name string, want bool) func() {
		t.Helper()
		release, ok, err := s.TryLock(ctx, name)
		if err != nil || ok != want {
			t.Fatalf("%s.TryLock(%q) = %v, %v; want %v", who, name, ok, err, want)
		}
		return release
	}
	release := tryLock("a", a, "namespace/x", true)
	tryLock("b", b, "namespace/x", false)
	tryLock("b", b, "namespace/y", true)()
	release()
	tryLock("b", b, "namespace/x", true)() // given back on release

	// A holder that dies (its session ends) lets the lock go; its release
	// then finds the connection broken and drops it.
	release = tryLock("a", a, "namespace/z", true)
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if release, ok, err := b.TryLock(ctx, "namespace/z"); err == nil && ok {
			release()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lock of a terminated session was not given back")
		}
		time.Sleep(10 * time.Millisecond)
	}
	release()
	tryLock("a", a, "namespace/z", true)() // a's pool works on with a new connection
}
