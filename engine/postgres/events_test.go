package postgres_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/jackc/pgx/v5"
)

// event is one row of the events log.
type event struct {
	RV, PrevRV           int64
	Type                 string
	Name                 string
	BodyRV, PrevBodyRV   string
	Stored, PrevStored   string
	HasBody, HasPrevBody bool
}

const eventsSQL = `SELECT resource_version, coalesce(prev_resource_version, 0), type, name,
	coalesce(body #>> '{metadata,resourceVersion}', ''), coalesce(prev_body #>> '{metadata,resourceVersion}', ''),
	coalesce(stored_version, ''), coalesce(prev_stored_version, ''), body IS NOT NULL, prev_body IS NOT NULL
FROM events WHERE resource = 'pipes.example.com' ORDER BY resource_version`

// readEvents returns the log of pipes.
func readEvents(t *testing.T, databaseURL string) []event {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, _ := conn.Query(context.Background(), eventsSQL)
	events, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (event, error) {
		var e event
		err := row.Scan(&e.RV, &e.PrevRV, &e.Type, &e.Name, &e.BodyRV, &e.PrevBodyRV, &e.Stored, &e.PrevStored, &e.HasBody, &e.HasPrevBody)
		return e, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return events
}

func TestEventsLog(t *testing.T) {
	url := pgtest.Open(t)
	s := openStore(t, url)
	ctx := context.Background()
	createNamespace(t, s, "default")
	created := mustCreate(t, s, newObject(pipes, "default", "p", nil))
	created.StoredVersion = "v2"
	updated, err := s.Update(ctx, created)
	if err != nil {
		t.Fatal(err)
	}
	deleted, err := s.Delete(ctx, updated)
	if err != nil {
		t.Fatal(err)
	}
	rv := func(n int64) string { return strconv.FormatInt(n, 10) }
	c, u, d := created.ResourceVersion, updated.ResourceVersion, deleted.ResourceVersion
	want := []event{
		{RV: c, Type: "ADDED", Name: "p", BodyRV: rv(c), Stored: "v1", HasBody: true},
		{RV: u, PrevRV: c, Type: "MODIFIED", Name: "p", BodyRV: rv(u), PrevBodyRV: rv(c), Stored: "v2", PrevStored: "v1",
			HasBody: true, HasPrevBody: true},
		// The last state is stored once; the event's object is derived.
		{RV: d, PrevRV: u, Type: "DELETED", Name: "p", PrevBodyRV: rv(u), Stored: "v2", PrevStored: "v2",
			HasPrevBody: true},
	}
	got := readEvents(t, url)
	if len(got) != len(want) {
		t.Fatalf("events = %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d = %+v; want %+v", i, got[i], want[i])
		}
	}
}

// TestFailedWritesLeaveNoGap checks that the usual failures consume no
// resourceVersion: watchers wait at every gap.
func TestFailedWritesLeaveNoGap(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	first := mustCreate(t, s, newObject(pipes, "default", "p", nil))
	missing := engine.ObjectKey{Resource: pipes, Namespace: "default", Name: "q"}
	failures := []func() error{
		func() error { _, err := s.Create(ctx, newObject(pipes, "default", "p", nil)); return err },
		func() error { _, err := s.Create(ctx, newObject(pipes, "nowhere", "p", nil)); return err },
		func() error {
			_, err := s.Update(ctx, engine.Object{Key: first.Key, ResourceVersion: 1, Body: first.Body})
			return err
		},
		func() error {
			_, err := s.Update(ctx, engine.Object{Key: missing, ResourceVersion: 1, Body: first.Body})
			return err
		},
		func() error {
			_, err := s.Delete(ctx, engine.Object{Key: first.Key, ResourceVersion: 1, Body: first.Body})
			return err
		},
		func() error { _, err := s.Delete(ctx, engine.Object{Key: missing}); return err },
	}
	for i, fail := range failures {
		if fail() == nil {
			t.Fatalf("failure %d succeeded", i)
		}
	}
	next := mustCreate(t, s, newObject(pipes, "default", "r", nil))
	if next.ResourceVersion != first.ResourceVersion+1 {
		t.Errorf("rv after failed writes = %d; want %d", next.ResourceVersion, first.ResourceVersion+1)
	}
}
