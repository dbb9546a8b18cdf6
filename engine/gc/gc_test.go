package gc_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/gc"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

// TestMain stops the throw-away PostgreSQL pgtest started once the tests end.
func TestMain(m *testing.M) { pgtest.Main(m) }

// A collector that stops mid-way (its process dies) leaves the work to the
// next, which finishes it; while one holds the lock, another does nothing.
// More dependents than a page, so that paging is exercised.
func TestCollectorRestartsMidWay(t *testing.T) {
	ctx := context.Background()
	kit := servicetest.Open(t, "default")
	db, snap, service := kit.Store, kit.Snapshot, kit.Service
	res, ver, _ := snap.Lookup("shop.example.com", "v1", "widgets")
	target := resource.Target{Resource: res, Version: ver, Namespace: "default"}
	create := func(name, owner string) string {
		refs := ""
		if owner != "" {
			refs = `,"ownerReferences":[{"apiVersion":"shop.example.com/v1","kind":"Widget","name":"owner","uid":"` + owner + `","blockOwnerDeletion":true}]`
		}
		r, err := service.Create(ctx, target, []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"`+name+`"`+refs+`},"spec":{"size":1}}`), resource.WriteOptions{})
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		return gjson.GetBytes(r.Object, "metadata.uid").String()
	}
	owner := create("owner", "")
	const dependents = 1200
	for i := range dependents {
		create(fmt.Sprintf("d%04d", i), owner)
	}
	if _, err := service.Delete(ctx, target, "owner", resource.DeleteOptions{PropagationPolicy: resource.PropagationForeground}); err != nil {
		t.Fatal(err)
	}

	// The first collector dies after 300 deletes.
	first, stop := context.WithCancel(ctx)
	var deletes atomic.Int64
	service.OnDelete(func(engine.ObjectKey) {
		if deletes.Add(1) == 300 {
			stop()
		}
	})
	a := gc.New(service, db, kit)
	if _, err := a.Pass(first); err == nil {
		t.Fatal("the first pass was not cut short")
	}
	left := count(t, db)
	if left <= 1 || left > dependents {
		t.Fatalf("%d objects left after the cut pass", left)
	}

	// While one process holds the lock, another's pass does nothing.
	release, ok, err := db.TryLock(ctx, "garbage-collector")
	if err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	b := gc.New(resource.New(db), db, kit)
	if did, err := b.Pass(ctx); did != 0 || err != nil {
		t.Fatalf("pass under another's lock: %d %v", did, err)
	}
	release()

	for range 5 {
		if _, err := b.Pass(ctx); err != nil {
			t.Fatal(err)
		}
		if count(t, db) == 0 {
			return
		}
	}
	t.Fatalf("%d objects left", count(t, db))
}

// count counts the widgets in default.
func count(t *testing.T, db *postgres.Store) int {
	t.Helper()
	n := 0
	_, err := db.List(context.Background(), engine.ListOptions{Resource: engine.GroupResource{Group: "shop.example.com", Resource: "widgets"}, Namespace: "default"},
		func(engine.Object) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return n
}
