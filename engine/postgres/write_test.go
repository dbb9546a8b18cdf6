package postgres_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
	"github.com/tidwall/sjson"
)

func TestRoundTrip(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	in := newObject(pipes, "default", "p1", map[string]string{"app": "web"})

	created := mustCreate(t, s, in)
	if created.ResourceVersion <= 0 || bodyRV(created.Body) != strconv.FormatInt(created.ResourceVersion, 10) {
		t.Fatalf("Create: rv %d, body rv %q", created.ResourceVersion, bodyRV(created.Body))
	}
	got, err := s.Get(ctx, in.Key)
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != created.ResourceVersion || got.StoredVersion != "v1" || !jsoneq.Equal(got.Body, created.Body) {
		t.Fatalf("Get = %+v %s; want %+v %s", got, got.Body, created, created.Body)
	}

	changed, _ := sjson.SetBytes(got.Body, "spec.size", 4)
	updated, err := s.Update(ctx, engine.Object{Key: in.Key, StoredVersion: "v2", ResourceVersion: got.ResourceVersion, Body: changed})
	if err != nil {
		t.Fatal(err)
	}
	if updated.ResourceVersion <= got.ResourceVersion || bodyRV(updated.Body) != strconv.FormatInt(updated.ResourceVersion, 10) {
		t.Fatalf("Update: rv %d after %d, body rv %q", updated.ResourceVersion, got.ResourceVersion, bodyRV(updated.Body))
	}
	got, err = s.Get(ctx, in.Key)
	if err != nil || got.StoredVersion != "v2" || !jsoneq.Equal(got.Body, updated.Body) {
		t.Fatalf("Get after update = %+v %s, %v; want %s", got, got.Body, err, updated.Body)
	}

	deleted, err := s.Delete(ctx, engine.Object{Key: in.Key})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := sjson.SetBytes(updated.Body, "metadata.resourceVersion", strconv.FormatInt(deleted.ResourceVersion, 10))
	if deleted.ResourceVersion <= updated.ResourceVersion || deleted.StoredVersion != "v2" || !jsoneq.Equal(deleted.Body, want) {
		t.Fatalf("Delete = %+v %s; want last state at a new rv", deleted, deleted.Body)
	}
	_, err = s.Get(ctx, in.Key)
	wantCode(t, err, engine.CodeNotFound)
}

func TestCreateErrors(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	mustCreate(t, s, newObject(pipes, "default", "taken", nil))
	ending := mustCreate(t, s, newObject(namespaces, "", "ending", nil))
	ending.Body, _ = sjson.SetBytes(ending.Body, "metadata.deletionTimestamp", "2026-01-01T00:00:00Z")
	if _, err := s.Update(context.Background(), ending); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		obj     engine.Object
		code    engine.Code
		kind    string
		message string
	}{
		{"name taken", newObject(pipes, "default", "taken", nil), engine.CodeAlreadyExists, "pipes",
			`pipes.example.com "taken" already exists`},
		{"namespace missing", newObject(pipes, "nowhere", "p", nil), engine.CodeNotFound, "namespaces",
			`namespaces "nowhere" not found`},
		{"namespace taken", newObject(namespaces, "", "default", nil), engine.CodeAlreadyExists, "namespaces",
			`namespaces "default" already exists`},
		{"namespace being deleted", newObject(pipes, "ending", "p", nil), engine.CodeForbidden, "pipes",
			`pipes.example.com "p" is forbidden: unable to create new content in namespace ending because it is being terminated`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Create(context.Background(), tt.obj)
			e := wantCode(t, err, tt.code)
			if e.Kind != tt.kind || e.Message != tt.message {
				t.Errorf("error kind %q message %q; want %q %q", e.Kind, e.Message, tt.kind, tt.message)
			}
		})
	}

	// A write without a stored version is a bug that would leave a row no
	// read can convert: the database refuses it.
	unversioned := newObject(pipes, "default", "unversioned", nil)
	unversioned.StoredVersion = ""
	if _, err := s.Create(context.Background(), unversioned); err == nil {
		t.Error("Create without a stored version succeeded")
	}
	taken, err := s.Get(context.Background(), engine.ObjectKey{Resource: pipes, Namespace: "default", Name: "taken"})
	if err != nil {
		t.Fatal(err)
	}
	taken.StoredVersion = ""
	if _, err := s.Update(context.Background(), taken); err == nil {
		t.Error("Update without a stored version succeeded")
	}
}

func TestCreateSameNameElsewhere(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "a")
	createNamespace(t, s, "b")
	for _, obj := range []engine.Object{
		newObject(pipes, "a", "same", nil),
		newObject(pipes, "b", "same", nil),
		newObject(valves, "a", "same", nil),
		newObject(engine.GroupResource{Group: "other.io", Resource: "pipes"}, "a", "same", nil),
	} {
		mustCreate(t, s, obj)
	}
}

func TestUpdateErrors(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	cur := mustCreate(t, s, newObject(pipes, "default", "p", nil))
	const conflict = `Operation cannot be fulfilled on pipes.example.com "p": ` +
		`the object has been modified; please apply your changes to the latest version and try again`

	tests := []struct {
		name    string
		key     engine.ObjectKey
		rv      int64
		code    engine.Code
		message string
	}{
		{"stale", cur.Key, cur.ResourceVersion - 1, engine.CodeConflict, conflict},
		{"future", cur.Key, cur.ResourceVersion + 100, engine.CodeConflict, conflict},
		{"unset", cur.Key, 0, engine.CodeConflict, conflict},
		{"missing", engine.ObjectKey{Resource: pipes, Namespace: "default", Name: "q"}, 1, engine.CodeNotFound,
			`pipes.example.com "q" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Update(context.Background(), engine.Object{Key: tt.key, StoredVersion: "v1", ResourceVersion: tt.rv, Body: cur.Body})
			if e := wantCode(t, err, tt.code); e.Message != tt.message {
				t.Errorf("message %q; want %q", e.Message, tt.message)
			}
		})
	}
}

func TestDeletePreconditions(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	cur := mustCreate(t, s, newObject(pipes, "default", "p", nil))
	missing := engine.ObjectKey{Resource: pipes, Namespace: "default", Name: "q"}

	tests := []struct {
		name string
		key  engine.ObjectKey
		rv   int64
		code engine.Code // "" for success
	}{
		{"missing", missing, 0, engine.CodeNotFound},
		{"missing with precondition", missing, 5, engine.CodeNotFound},
		{"stale precondition", cur.Key, cur.ResourceVersion - 1, engine.CodeConflict},
		{"matching precondition", cur.Key, cur.ResourceVersion, ""},
		{"already deleted", cur.Key, 0, engine.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Delete(context.Background(), engine.Object{Key: tt.key, ResourceVersion: tt.rv})
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, tt.code)
		})
	}
}

// TestResourceVersionsIncrease checks that every write, whatever its
// resource, takes a larger resourceVersion than the one before.
func TestResourceVersionsIncrease(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	var last int64
	check := func(what string, obj engine.Object, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if obj.ResourceVersion <= last {
			t.Fatalf("%s: rv %d not above %d", what, obj.ResourceVersion, last)
		}
		last = obj.ResourceVersion
	}
	for i := range 5 {
		for _, gr := range []engine.GroupResource{pipes, valves} {
			name := gr.Resource + strconv.Itoa(i)
			obj, err := s.Create(ctx, newObject(gr, "default", name, nil))
			check("create "+name, obj, err)
			obj, err = s.Update(ctx, obj)
			check("update "+name, obj, err)
		}
	}
	obj, err := s.Delete(ctx, engine.Object{Key: engine.ObjectKey{Resource: pipes, Namespace: "default", Name: "pipes0"}})
	check("delete", obj, err)
}

// TestGetReadsTheDefaultsStamp: a get returns the defaults stamp its
// object was written with (every bit of it: stamps use all 64), alone and
// read together with other gets, and an update that stores none clears it.
func TestGetReadsTheDefaultsStamp(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	const stamp = 1<<63 | 0x5eed // above int64's range, as a hash may be
	var objects []engine.Object
	for i := range 16 {
		in := newObject(pipes, "default", "p"+strconv.Itoa(i), nil)
		in.DefaultsStamp = stamp
		objects = append(objects, mustCreate(t, s, in))
	}
	var gets sync.WaitGroup // in flight together: read by one statement
	for _, o := range objects {
		gets.Go(func() {
			if got, err := s.Get(ctx, o.Key); err != nil || got.DefaultsStamp != stamp {
				t.Errorf("Get %s: stamp %#x, %v; want %#x", o.Key.Name, got.DefaultsStamp, err, uint64(stamp))
			}
		})
	}
	gets.Wait()
	o := objects[0]
	o.DefaultsStamp = 0
	if _, err := s.Update(ctx, o); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, o.Key); err != nil || got.DefaultsStamp != 0 {
		t.Errorf("Get after an update without a stamp: stamp %#x, %v; want 0", got.DefaultsStamp, err)
	}
}
