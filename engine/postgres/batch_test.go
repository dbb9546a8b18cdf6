package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/wait"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/tidwall/sjson"
)

// TestBatchStatementsSeeEachOther runs conflicting writes in one batch:
// each statement sees the ones before it in the batch, as if they had run
// one after another, and only what succeeded is in the events log.
func TestBatchStatementsSeeEachOther(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	held := mustCreate(t, s, newObject(pipes, "default", "held", nil))
	doomed := mustCreate(t, s, newObject(pipes, "default", "doomed", nil))
	start := held.ResourceVersion - 1
	events := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: start})
	receive(t, events, 2, 5*time.Second) // the two creates above

	changed, _ := sjson.SetBytes(held.Body, "spec.size", 9)
	update := engine.Object{Key: held.Key, StoredVersion: "v1", ResourceVersion: held.ResourceVersion, Body: changed}
	var creates, updates [2]error
	var deleted error
	postgres.InOneBatch(s, nil,
		func() { _, creates[0] = s.Create(ctx, newObject(pipes, "default", "twin", nil)) },
		func() { _, creates[1] = s.Create(ctx, newObject(pipes, "default", "twin", nil)) },
		func() { _, updates[0] = s.Update(ctx, update) },
		func() { _, updates[1] = s.Update(ctx, update) },
		func() { _, deleted = s.Delete(ctx, doomed) },
	)

	for _, pair := range []struct {
		name string
		errs [2]error
		code engine.Code
	}{{"create of one name", creates, engine.CodeAlreadyExists}, {"update from one resourceVersion", updates, engine.CodeConflict}} {
		ok := 0
		for _, err := range pair.errs {
			if err == nil {
				ok++
			} else if engine.ErrorCode(err) != pair.code {
				t.Errorf("%s: error %v; want %s", pair.name, err, pair.code)
			}
		}
		if ok != 1 {
			t.Errorf("%s twice in one batch: %d succeeded (%v); want exactly 1", pair.name, ok, pair.errs)
		}
	}
	if deleted != nil {
		t.Errorf("Delete: %v", deleted)
	}
	got := receive(t, events, 3, 5*time.Second)
	if !sameEvents(got, "ADDED twin", "DELETED doomed", "MODIFIED held") {
		t.Errorf("events = %s; want ADDED twin, MODIFIED held and DELETED doomed, once each", summary(got))
	}
	quiet(t, events, 100*time.Millisecond)
}

// sameEvents reports whether events are want, in any order.
func sameEvents(events []engine.Event, want ...string) bool {
	seen := map[string]int{}
	for _, e := range events {
		seen[fmt.Sprintf("%s %s", e.Type, e.Object.Key.Name)]++
	}
	for _, w := range want {
		seen[w]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestBatchFailureRunsEachAlone makes one statement of a batch fail: the
// batch's transaction is rolled back, every statement runs again alone,
// and only the failing one fails, with nothing written twice.
func TestBatchFailureRunsEachAlone(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	before := mustCreate(t, s, newObject(pipes, "default", "before", nil))
	events := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: before.ResourceVersion})

	bad := newObject(pipes, "default", "bad", nil)
	bad.Body = []byte(`{"metadata": {"name": "bad"`) // not JSON: PostgreSQL refuses the cast
	var errs [3]error
	var created [3]engine.Object
	objs := []engine.Object{newObject(pipes, "default", "a", nil), bad, newObject(pipes, "default", "z", nil)}
	postgres.InOneBatch(s, nil,
		func() { created[0], errs[0] = s.Create(ctx, objs[0]) },
		func() { created[1], errs[1] = s.Create(ctx, objs[1]) },
		func() { created[2], errs[2] = s.Create(ctx, objs[2]) },
	)
	if errs[0] != nil || errs[2] != nil || errs[1] == nil {
		t.Fatalf("errors = %v; want only the malformed body's", errs)
	}
	got := receive(t, events, 2, 5*time.Second)
	if !sameEvents(got, "ADDED a", "ADDED z") {
		t.Errorf("events = %s; want ADDED a and z, once each", summary(got))
	}
	quiet(t, events, 100*time.Millisecond)
	for _, i := range []int{0, 2} {
		stored, err := s.Get(ctx, objs[i].Key)
		if err != nil || stored.ResourceVersion != created[i].ResourceVersion {
			t.Errorf("Get(%s) = rv %d, %v; want rv %d", objs[i].Key.Name, stored.ResourceVersion, err, created[i].ResourceVersion)
		}
	}
}

// TestBatchCommitRefusedRunsEachAlone: when PostgreSQL refuses a batch's
// commit (here a deferred constraint trigger refuses one row), nothing of
// it happened, and each write runs again alone: only the refused one
// fails.
func TestBatchCommitRefusedRunsEachAlone(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	if err := postgres.ExecForTest(ctx, s, `
		CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN RAISE EXCEPTION 'refused at commit'; END $$;
		CREATE CONSTRAINT TRIGGER refuse AFTER INSERT ON objects DEFERRABLE INITIALLY DEFERRED
			FOR EACH ROW WHEN (NEW.name = 'refused') EXECUTE FUNCTION refuse()`); err != nil {
		t.Fatal(err)
	}
	objs := []engine.Object{newObject(pipes, "default", "a", nil), newObject(pipes, "default", "refused", nil), newObject(pipes, "default", "z", nil)}
	var errs [3]error
	postgres.InOneBatch(s, nil,
		func() { _, errs[0] = s.Create(ctx, objs[0]) },
		func() { _, errs[1] = s.Create(ctx, objs[1]) },
		func() { _, errs[2] = s.Create(ctx, objs[2]) },
	)
	if errs[0] != nil || errs[2] != nil || errs[1] == nil {
		t.Fatalf("errors = %v; want only the refused create's", errs)
	}
	for i, want := range []engine.Code{"", engine.CodeNotFound, ""} {
		if _, err := s.Get(ctx, objs[i].Key); engine.ErrorCode(err) != want {
			t.Errorf("Get(%s) = %v; want code %q", objs[i].Key.Name, err, want)
		}
	}
}

// TestBatchSkipsCancelledCalls: a request whose context ended while it
// waited in a batch is not run; the others are.
func TestBatchSkipsCancelledCalls(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	cancelled, cancel := context.WithCancel(ctx)
	never, kept := newObject(pipes, "default", "never", nil), newObject(pipes, "default", "kept", nil)
	var errs [2]error
	postgres.InOneBatch(s, cancel,
		func() { _, errs[0] = s.Create(cancelled, never) },
		func() { _, errs[1] = s.Create(ctx, kept) },
	)
	if !errors.Is(errs[0], context.Canceled) || errs[1] != nil {
		t.Fatalf("errors = %v; want context.Canceled, then none", errs)
	}
	if _, err := s.Get(ctx, never.Key); engine.ErrorCode(err) != engine.CodeNotFound {
		t.Errorf("a cancelled create was stored: Get = %v", err)
	}
	if _, err := s.Get(ctx, kept.Key); err != nil {
		t.Errorf("Get(kept): %v", err)
	}
}

// TestBatchesUnderLoad sends many concurrent creates and gets through the
// real workers: each succeeds once, and the batch histogram counts every
// statement exactly once.
func TestBatchesUnderLoad(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := openStoreWith(t, pgtest.Open(t), postgres.Options{Metrics: reg})
	ctx := context.Background()
	createNamespace(t, s, "default")
	const clients, each = 32, 10
	rvs := sync.Map{}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				obj := newObject(pipes, "default", fmt.Sprintf("o-%d-%d", c, i), nil)
				created, err := s.Create(ctx, obj)
				if err != nil {
					t.Errorf("Create(%s): %v", obj.Key.Name, err)
					return
				}
				if other, dup := rvs.LoadOrStore(created.ResourceVersion, obj.Key.Name); dup {
					t.Errorf("%s and %s both got resourceVersion %d", obj.Key.Name, other, created.ResourceVersion)
				}
				got, err := s.Get(ctx, obj.Key)
				if err != nil || got.ResourceVersion != created.ResourceVersion {
					t.Errorf("Get(%s) = rv %d, %v; want rv %d", obj.Key.Name, got.ResourceVersion, err, created.ResourceVersion)
				}
			}
		})
	}
	wg.Wait()

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	statements := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "dynapi_storage_batch_statements" {
			continue
		}
		for _, m := range f.GetMetric() {
			statements[m.GetLabel()[0].GetValue()] = m.GetHistogram().GetSampleSum()
		}
	}
	// The namespace's create is a write too.
	if want := float64(clients*each + 1); statements["write"] != want || statements["read"] != clients*each {
		t.Errorf("statements counted by kind = %v; want write %v, read %d", statements, want, clients*each)
	}
}

// TestBatchStuckOnALockHoldsUpNothingElse: a write waiting for a row lock
// that another transaction holds does not hold up the process's writes
// sent after it, which go in batches beside it.
func TestBatchStuckOnALockHoldsUpNothingElse(t *testing.T) {
	url := pgtest.Open(t)
	s := openStore(t, url)
	ctx := context.Background()
	createNamespace(t, s, "default")
	locked := mustCreate(t, s, newObject(pipes, "default", "locked", nil))

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT FROM objects WHERE name = 'locked' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}

	stuck := make(chan error, 1)
	go func() {
		_, err := s.Delete(ctx, engine.Object{Key: locked.Key})
		stuck <- err
	}()
	// Statements sent in one batch share its wait; those sent after the
	// stuck one must not.
	waitForLockWait(t, url)
	for _, name := range []string{"free-1", "free-2"} {
		done := make(chan error, 1)
		go func() { _, err := s.Create(ctx, newObject(pipes, "default", name, nil)); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Create(%s): %v", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Create(%s) waited behind a write stuck on a row lock", name)
		}
	}
	select {
	case err := <-stuck:
		t.Fatalf("Delete of the locked object returned while the lock was held: %v", err)
	default:
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-stuck; err != nil {
		t.Errorf("Delete after the lock was released: %v", err)
	}
}

// waitForLockWait waits until a session of the database at url waits for a lock.
func waitForLockWait(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	wait.Eventually(t, 5*time.Second, func() (bool, string) {
		var waiting int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		return waiting > 0, "a statement waits for the row lock"
	})
}

// TestGetsInOneBatch reads several objects in one statement: each get
// receives its own object, also when two ask for the same one; a missing
// object is NotFound; and a key PostgreSQL refuses makes every get of the
// batch run again alone, so that only that one fails.
func TestGetsInOneBatch(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for _, ns := range []string{"default", "other"} {
		createNamespace(t, s, ns)
	}
	stored := map[engine.ObjectKey]engine.Object{} // as a get alone reads them
	for _, obj := range []engine.Object{newObject(pipes, "default", "a", nil), newObject(pipes, "default", "b", nil),
		newObject(pipes, "other", "a", nil), newObject(valves, "default", "a", nil)} {
		mustCreate(t, s, obj)
		got, err := s.Get(ctx, obj.Key)
		if err != nil {
			t.Fatal(err)
		}
		stored[obj.Key] = got
	}
	key := func(gr engine.GroupResource, ns, name string) engine.ObjectKey {
		return engine.ObjectKey{Resource: gr, Namespace: ns, Name: name}
	}
	tests := []struct {
		name string
		keys []engine.ObjectKey
		want []engine.Code // per key: "" for found
	}{
		{"same name in other resources and namespaces",
			[]engine.ObjectKey{key(pipes, "default", "a"), key(pipes, "other", "a"), key(valves, "default", "a"), key(pipes, "default", "b")},
			[]engine.Code{"", "", "", ""}},
		{"one object twice, one missing",
			[]engine.ObjectKey{key(pipes, "default", "b"), key(pipes, "default", "missing"), key(pipes, "default", "b")},
			[]engine.Code{"", engine.CodeNotFound, ""}},
		{"a key PostgreSQL refuses",
			[]engine.ObjectKey{key(pipes, "default", "a"), key(pipes, "default", "nul\x00"), key(valves, "default", "a")},
			[]engine.Code{"", engine.CodeInternal, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make([]engine.Object, len(tt.keys))
			errs := make([]error, len(tt.keys))
			fns := make([]func(), len(tt.keys))
			for i, k := range tt.keys {
				fns[i] = func() { got[i], errs[i] = s.Get(ctx, k) }
			}
			postgres.GetsInOneBatch(s, fns...)
			for i, k := range tt.keys {
				if tt.want[i] != "" {
					if engine.ErrorCode(errs[i]) != tt.want[i] {
						t.Errorf("Get(%v) error = %v; want %s", k, errs[i], tt.want[i])
					}
					continue
				}
				want := stored[k]
				if errs[i] != nil || got[i].Key != k || got[i].ResourceVersion != want.ResourceVersion || string(got[i].Body) != string(want.Body) {
					t.Errorf("Get(%v) = %v rv %d %s, %v; want rv %d %s", k, got[i].Key, got[i].ResourceVersion, got[i].Body, errs[i], want.ResourceVersion, want.Body)
				}
			}
		})
	}
}
