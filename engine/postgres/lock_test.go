package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/wait"
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
	wait.Eventually(t, 5*time.Second, func() (bool, string) {
		release, ok, err := b.TryLock(ctx, "namespace/z")
		if err == nil && ok {
			release()
		}
		return err == nil && ok, fmt.Sprintf("the lock of a terminated session given back; last: %v, %v", ok, err)
	})
	release()
	tryLock("a", a, "namespace/z", true)() // a's pool works on with a new connection
}
