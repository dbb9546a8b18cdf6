package postgres_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
)

// TestRemainderKeptBesideTheBody checks that what a stored version could not
// hold comes back from every read: Get, List (latest and at an older
// resourceVersion), Delete and the watch events before and after a write.
func TestRemainderKeptBesideTheBody(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	events := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: 0})
	in := newObject(pipes, "default", "r", nil)
	in.Remainder = []byte(`[{"path":"spec.a","original":1}]`)
	created := mustCreate(t, s, in)

	got, err := s.Get(ctx, in.Key)
	if err != nil || string(got.Remainder) != string(in.Remainder) {
		t.Fatalf("Get remainder = %s, %v", got.Remainder, err)
	}
	next := created
	next.Remainder = []byte(`[{"path":"spec.b","original":[1,2]}]`)
	updated, err := s.Update(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	var atCreate []byte
	if _, err := s.List(ctx, engine.ListOptions{Resource: pipes, ResourceVersion: strconv.FormatInt(created.ResourceVersion, 10),
		ResourceVersionMatch: engine.MatchExact}, func(o engine.Object) error { atCreate = o.Remainder; return nil }); err != nil {
		t.Fatal(err)
	}
	if string(atCreate) != string(in.Remainder) {
		t.Fatalf("List at the create's resourceVersion: remainder %s", atCreate)
	}
	deleted, err := s.Delete(ctx, updated)
	if err != nil || string(deleted.Remainder) != string(next.Remainder) {
		t.Fatalf("Delete remainder = %s, %v", deleted.Remainder, err)
	}
	evs := receive(t, events, 3, 5*time.Second)
	if string(evs[0].Object.Remainder) != string(in.Remainder) ||
		string(evs[1].Object.Remainder) != string(next.Remainder) || string(evs[1].PrevRemainder) != string(in.Remainder) ||
		string(evs[2].Object.Remainder) != string(next.Remainder) {
		t.Fatalf("event remainders: %s %s/%s %s", evs[0].Object.Remainder, evs[1].Object.Remainder, evs[1].PrevRemainder, evs[2].Object.Remainder)
	}
}
