package postgres_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The creates of one batch, written by one statement, each get what a
// create sent alone gets: its own resourceVersion in its body and the
// log, or its own error.
func TestCreatesInOneBatch(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	existing := mustCreate(t, s, newObject(pipes, "default", "existing", nil))
	events := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: existing.ResourceVersion})

	objs := []engine.Object{
		newObject(pipes, "default", "a", map[string]string{"app": "x"}),
		newObject(pipes, "default", "existing", nil),
		newObject(pipes, "nowhere", "b", nil),
		newObject(pipes, "", "cluster-wide", nil),
		newObject(valves, "default", "c", nil),
	}
	objs[4].Remainder = []byte(`{"kept":true}`)
	created := writeInOneBatch(t, s, []engine.Code{"", engine.CodeAlreadyExists, engine.CodeNotFound, "", ""},
		func(i int) (engine.Object, error) { return s.Create(ctx, objs[i]) })

	rvs := map[int64]bool{}
	for i, obj := range objs {
		if created[i].ResourceVersion == 0 {
			continue // failed as it should
		}
		rv := created[i].ResourceVersion
		if rv <= existing.ResourceVersion || rvs[rv] {
			t.Errorf("create %v: resourceVersion %d, after %d and not another's", obj.Key, rv, existing.ResourceVersion)
		}
		rvs[rv] = true
		stored, err := s.Get(ctx, obj.Key)
		if err != nil {
			t.Fatal(err)
		}
		if stored.ResourceVersion != rv || gjson.GetBytes(stored.Body, "metadata.resourceVersion").String() != strconv.FormatInt(rv, 10) {
			t.Errorf("create %v answered %d, stored %d: %s", obj.Key, rv, stored.ResourceVersion, stored.Body)
		}
		if string(stored.Remainder) != string(obj.Remainder) {
			t.Errorf("create %v stored remainder %s, want %s", obj.Key, stored.Remainder, obj.Remainder)
		}
	}
	for _, ev := range receive(t, events, 2, 5*time.Second) { // the pipes created: a, cluster-wide
		if ev.Type != engine.EventAdded || !rvs[ev.Object.ResourceVersion] {
			t.Errorf("event %s %v at %d, want ADDED of a create of the batch", ev.Type, ev.Object.Key, ev.Object.ResourceVersion)
		}
	}
}

// The updates of one batch, of distinct objects, written by one
// statement, each get what an update sent alone gets.
func TestUpdatesInOneBatch(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	var objs [4]engine.Object
	for i, name := range []string{"a", "b", "stale", "gone"} {
		objs[i] = mustCreate(t, s, newObject(pipes, "default", name, nil))
	}
	if _, err := s.Delete(ctx, engine.Object{Key: objs[3].Key}); err != nil {
		t.Fatal(err)
	}
	events := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: objs[3].ResourceVersion + 1})

	updates := make([]engine.Object, len(objs))
	for i, obj := range objs {
		body, _ := sjson.SetBytes(obj.Body, "spec.size", 10+i)
		updates[i] = engine.Object{Key: obj.Key, StoredVersion: "v1", ResourceVersion: obj.ResourceVersion, Body: body}
	}
	updates[2].ResourceVersion-- // not the current one
	updates[1].Remainder = []byte(`{"kept":true}`)
	updated := writeInOneBatch(t, s, []engine.Code{"", "", engine.CodeConflict, engine.CodeNotFound},
		func(i int) (engine.Object, error) { return s.Update(ctx, updates[i]) })

	rvs := map[int64]bool{}
	for i, u := range updates {
		if updated[i].ResourceVersion == 0 {
			continue // failed as it should
		}
		rv := updated[i].ResourceVersion
		rvs[rv] = true
		stored, err := s.Get(ctx, u.Key)
		if err != nil {
			t.Fatal(err)
		}
		if stored.ResourceVersion != rv || gjson.GetBytes(stored.Body, "metadata.resourceVersion").String() != strconv.FormatInt(rv, 10) ||
			gjson.GetBytes(stored.Body, "spec.size").Int() != int64(10+i) || string(stored.Remainder) != string(u.Remainder) {
			t.Errorf("update %v answered %d; stored %d, remainder %s: %s", u.Key, rv, stored.ResourceVersion, stored.Remainder, stored.Body)
		}
	}
	for _, ev := range receive(t, events, 2, 5*time.Second) { // a and b
		if ev.Type != engine.EventModified || !rvs[ev.Object.ResourceVersion] || ev.Prev == nil {
			t.Errorf("event %s %v at %d (previous state %s), want MODIFIED of an update of the batch", ev.Type, ev.Object.Key, ev.Object.ResourceVersion, ev.Prev)
		}
	}
}

// The deletes of one batch, of distinct objects, written by one
// statement, each get what a delete sent alone gets: the last state at
// the delete's resourceVersion, or its own error.
func TestDeletesInOneBatch(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	var objs [4]engine.Object
	for i, name := range []string{"a", "b", "stale", "gone"} {
		objs[i] = newObject(pipes, "default", name, nil)
		if i == 1 {
			objs[i].Remainder = []byte(`{"kept":true}`)
		}
		objs[i] = mustCreate(t, s, objs[i])
	}
	if _, err := s.Delete(ctx, engine.Object{Key: objs[3].Key}); err != nil {
		t.Fatal(err)
	}
	events := mustWatch(t, s, engine.WatchOptions{Resource: pipes, ResourceVersion: objs[3].ResourceVersion + 1})

	expected := []int64{0, objs[1].ResourceVersion, objs[2].ResourceVersion - 1, 0}
	last := writeInOneBatch(t, s, []engine.Code{"", "", engine.CodeConflict, engine.CodeNotFound},
		func(i int) (engine.Object, error) {
			held := objs[i] // at a precondition, the delete answers with it
			held.ResourceVersion = expected[i]
			return s.Delete(ctx, held)
		})

	rvs := map[int64]bool{}
	for i, obj := range objs {
		if last[i].ResourceVersion == 0 {
			continue // failed as it should
		}
		rv := last[i].ResourceVersion
		rvs[rv] = true
		if rv <= obj.ResourceVersion || gjson.GetBytes(last[i].Body, "metadata.resourceVersion").String() != strconv.FormatInt(rv, 10) ||
			gjson.GetBytes(last[i].Body, "metadata.name").String() != obj.Key.Name || string(last[i].Remainder) != string(obj.Remainder) {
			t.Errorf("delete %v answered %d, remainder %s: %s", obj.Key, rv, last[i].Remainder, last[i].Body)
		}
		if _, err := s.Get(ctx, obj.Key); engine.ErrorCode(err) != engine.CodeNotFound {
			t.Errorf("delete %v: the object is still there (%v)", obj.Key, err)
		}
	}
	if _, err := s.Get(ctx, objs[2].Key); err != nil {
		t.Errorf("the delete that failed removed %v: %v", objs[2].Key, err)
	}
	for _, ev := range receive(t, events, 2, 5*time.Second) { // a and b
		if ev.Type != engine.EventDeleted || !rvs[ev.Object.ResourceVersion] {
			t.Errorf("event %s %v at %d, want DELETED of a delete of the batch", ev.Type, ev.Object.Key, ev.Object.ResourceVersion)
		}
	}
}

// writeInOneBatch runs write(i) for each code of want, all in one batch,
// checks that each fails with its code ("": succeeds), and returns the
// answers: the zero Object for each write that failed.
func writeInOneBatch(t *testing.T, s *postgres.Store, want []engine.Code, write func(i int) (engine.Object, error)) []engine.Object {
	t.Helper()
	answers, errs := make([]engine.Object, len(want)), make([]error, len(want))
	fns := make([]func(), len(want))
	for i := range want {
		fns[i] = func() { answers[i], errs[i] = write(i) }
	}
	postgres.InOneBatch(s, nil, fns...)
	for i, code := range want {
		if got := engine.ErrorCode(errs[i]); got != code {
			t.Errorf("write %d: error %v, want code %q", i, errs[i], code)
		}
		if errs[i] != nil {
			answers[i] = engine.Object{}
		}
	}
	return answers
}
