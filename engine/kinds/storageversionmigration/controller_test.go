package storageversionmigration_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/kinds/storageversionmigration"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

// TestMain stops the throw-away PostgreSQL pgtest started once the tests end.
func TestMain(m *testing.M) { pgtest.Main(m) }

// kit is a Service with the Controller registered, and the migrations'
// target.
type kit struct {
	servicetest.Kit
	c *storageversionmigration.Controller
	t resource.Target
}

func open(t *testing.T) kit {
	k := servicetest.Open(t)
	r, v, ok := k.Snapshot.Lookup("storagemigration.k8s.io", "v1", "storageversionmigrations")
	if !ok {
		t.Fatal("no StorageVersionMigration kind")
	}
	return kit{Kit: k, c: storageversionmigration.Register(k.Service), t: resource.Target{Resource: r, Version: v}}
}

// create creates a migration of group/res named name.
func (k kit) create(t *testing.T, name, group, res string) {
	t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":%q},
		"spec":{"resource":{"group":%q,"resource":%q}}}`, name, group, res)
	if _, err := k.Service.Create(context.Background(), k.t, []byte(body), resource.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// conditions renders a migration's conditions, "Type=Status:Reason" sorted.
func (k kit) conditions(t *testing.T, name string) string {
	t.Helper()
	obj, err := k.Service.Get(context.Background(), k.t, name)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range gjson.GetBytes(obj, "status.conditions").Array() {
		got = append(got, c.Get("type").Str+"="+c.Get("status").Str+":"+c.Get("reason").Str)
	}
	slices.Sort(got)
	return strings.Join(got, " ")
}

// While another process holds a resource's lock, a pass leaves its
// migrations alone; once it is free, the next pass runs them.
func TestPassWaitsForTheLock(t *testing.T) {
	ctx := context.Background()
	k := open(t)
	k.create(t, "pipes", "plumbing.example.com", "pipes")
	release, ok, err := k.Store.TryLock(ctx, "storage-version-migration/pipes.plumbing.example.com")
	if err != nil || !ok {
		t.Fatalf("TryLock: %v %v", ok, err)
	}
	if _, err := k.c.Pass(ctx, k.Snapshot); err != nil {
		t.Fatal(err)
	}
	if got := k.conditions(t, "pipes"); got != "" {
		t.Fatalf("a pass while another holds the lock: %s", got)
	}
	release()
	if _, err := k.c.Pass(ctx, k.Snapshot); err != nil {
		t.Fatal(err)
	}
	if got, want := k.conditions(t, "pipes"), "Running=False:MigrationCompleted Succeeded=True:StorageVersionMigrationSucceeded"; got != want {
		t.Fatalf("conditions after a pass = %s, want %s", got, want)
	}
}

// A migration of a resource no one serves waits a minute for a
// definition, as kube's does, then fails.
func TestPassFailsAResourceNotServed(t *testing.T) {
	ctx := context.Background()
	k := open(t)
	k.create(t, "foo", "", "foo")
	tests := []struct {
		after time.Duration
		again bool
		want  string
	}{
		{0, true, "Running=True:MigrationRunning"},
		{59 * time.Second, true, "Running=True:MigrationRunning"},
		{61 * time.Second, false, "Failed=True:StorageVersionMigrationFailed Running=False:MigrationCompleted"},
	}
	obj, _ := k.Service.Get(ctx, k.t, "foo")
	start, err := time.Parse(time.RFC3339, gjson.GetBytes(obj, "metadata.creationTimestamp").Str)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		k.c.Now = func() time.Time { return start.Add(tt.after) }
		again, err := k.c.Pass(ctx, k.Snapshot)
		if err != nil || again != tt.again {
			t.Fatalf("after %v: Pass = %v, %v; want again %v", tt.after, again, err, tt.again)
		}
		if got := k.conditions(t, "foo"); got != tt.want {
			t.Fatalf("after %v: conditions %s, want %s", tt.after, got, tt.want)
		}
	}
	obj, _ = k.Service.Get(ctx, k.t, "foo")
	if msg := gjson.GetBytes(obj, `status.conditions.#(type=="Failed").message`).Str; msg != "resource does not exist in discovery" {
		t.Errorf("Failed message = %q", msg)
	}
}
