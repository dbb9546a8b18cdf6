package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

// TestListPlans checks that the list statements stay index-driven, with
// custom and generic plans: a selective label selector through the GIN
// index, a page through the primary key, the changed part through the
// log's primary key.
func TestListPlans(t *testing.T) {
	url := pgtest.Open(t)
	populate(t, url, 20000)
	// A log as long as the objects, as after as many writes within the retention.
	execSQL(t, url, `INSERT INTO events (resource_version, resource, namespace, name, type, body, stored_version)
		SELECT resource_version, resource, namespace, name, 'ADDED', body, stored_version FROM objects`, "ANALYZE events",
		// A few objects in other namespaces: a generic plan then guesses a
		// namespace holds a tenth of the objects, as it does with ten.
		`INSERT INTO objects (resource, namespace, name, uid, resource_version, stored_version, body, labels)
		SELECT resource, 'ns' || i, name, uid, nextval('resource_version'), stored_version, body, labels
		FROM objects, generate_series(1, 9) i WHERE name = 'p1'`, "ANALYZE objects")
	s := openStore(t, url)
	selector := []engine.Requirement{{Key: "group", Operator: engine.OpEquals, Values: []string{"g7"}}}
	tests := []struct {
		name            string
		opts            engine.ListOptions
		changed, unchan string
		avoid           string // in no plan
	}{
		// The GIN index alone: a bitmap of the primary key, ANDed with it,
		// would read every key of the namespace.
		{"1% selector", engine.ListOptions{Namespace: "default", Labels: selector}, "events_pkey", "objects_labels", "objects_pkey"},
		{"page", engine.ListOptions{Limit: 500}, "events_pkey", "objects_pkey", ""},
		{"next page", engine.ListOptions{Limit: 500, Continue: firstPage(t, s, 500)}, "events_pkey", "objects_pkey", ""},
		// The scan starts at the token's key, instead of reading the
		// namespace from its start and filtering with ROW(namespace, name).
		{"next page in a namespace", engine.ListOptions{Namespace: "default", Limit: 500, Continue: firstPage(t, s, 500)},
			"events_pkey", "objects_pkey", "ROW(namespace"},
	}
	t.Run("latest", func(t *testing.T) { checkLatestChangedPlans(t, s) })
	t.Run("count after a first page", func(t *testing.T) {
		// The first page of a paged list counts what follows it. At the
		// newest state no row's resourceVersion matters, so the count can
		// read the primary key alone: an index-only scan wherever the
		// visibility map is fresh (which depends on autovacuum and on
		// the other tests' snapshots, so the test checks the condition).
		plan, err := postgres.NewestCountPlan(context.Background(), s, engine.ListOptions{Resource: pipes, Namespace: "default", Limit: 500}, 20000)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plan, "resource_version <= ") {
			t.Errorf("the count reads each object's resourceVersion:\n%s", plan)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Resource = pipes
			plans, err := postgres.ListPlans(context.Background(), s, tt.opts, 20000)
			if err != nil {
				t.Fatal(err)
			}
			for _, plan := range plans {
				want := map[string]string{"changed": tt.changed, "unchanged": tt.unchan}[plan.Part]
				avoided := tt.avoid != "" && strings.Contains(plan.Text, tt.avoid)
				if !strings.Contains(plan.Text, want) || avoided ||
					strings.Contains(plan.Text, "Seq Scan on objects") || strings.Contains(plan.Text, "Seq Scan on events") {
					t.Errorf("%s plan of the %s part does not use %s:\n%s", plan.Mode, plan.Part, want, plan.Text)
				}
			}
		})
	}
}

// TestWholeListStreamsInKeyOrder: a list without label or body field
// selectors reads the primary key in order and sorts nothing, even where
// PostgreSQL's estimates favour a scan and a sort of every object (as they
// do for a whole list of 100k objects of 1.3 kB; here a high
// random_page_cost tips 20k the same way). A sort holds back the first
// object until the last is read, and spills to disk.
func TestWholeListStreamsInKeyOrder(t *testing.T) {
	url := pgtest.Open(t)
	populate(t, url, 20000)
	execSQL(t, url, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET random_page_cost = 40', current_database()); END $$`)
	s := openStore(t, url)
	for _, opts := range []engine.ListOptions{
		{Resource: pipes},
		{Resource: pipes, Namespace: "default"},
		{Resource: pipes, Fields: []engine.FieldRequirement{{Path: "metadata.name", Operator: engine.OpNotEquals, Value: "p1"}}},
	} {
		plans, err := postgres.ListPlans(context.Background(), s, opts, 20000)
		if err != nil {
			t.Fatal(err)
		}
		for _, plan := range plans {
			if plan.Part == "unchanged" && (!strings.Contains(plan.Text, "Index Scan using objects_pkey") || strings.Contains(plan.Text, "Sort")) {
				t.Errorf("%+v: %s plan is not an ordered scan of the primary key:\n%s", opts, plan.Mode, plan.Text)
			}
		}
	}
}

// checkLatestChangedPlans checks that the changed part of a list at the
// newest state reads the log through its primary key, whatever the
// selectors, though the sequence's value it starts from is unknown when
// PostgreSQL plans it: a scan of the whole log (every write of the
// retention window) took a second at 200,000 events.
func checkLatestChangedPlans(t *testing.T, s *postgres.Store) {
	for _, opts := range []engine.ListOptions{
		{Resource: pipes},
		{Resource: pipes, Namespace: "default", Labels: []engine.Requirement{{Key: "group", Operator: engine.OpEquals, Values: []string{"g7"}}}},
		{Resource: engine.Namespaces, BodyFields: []engine.FieldRequirement{{Path: "metadata.deletionTimestamp", Operator: engine.OpNotEquals, Value: ""}}},
	} {
		plan, err := postgres.LatestChangedPlan(context.Background(), s, opts, 20000)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "events_pkey") || strings.Contains(plan, "Seq Scan on events") {
			t.Errorf("%+v: the changed part does not read the log through its primary key:\n%s", opts, plan)
		}
	}
}

// firstPage returns the continue token of a first page of limit pipes.
func firstPage(t *testing.T, s *postgres.Store, limit int64) string {
	t.Helper()
	meta, err := s.List(context.Background(), engine.ListOptions{Resource: pipes, Limit: limit},
		func(engine.Object) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return meta.Continue
}

// TestPlannedOnce: the statements run most often, whose custom plans differ
// only in their arguments, are planned once per connection, and the plan
// kept is the index scan a custom plan makes: the poller's read of the log
// from W at its start and near its end (the background pool), the gets
// read together (genericPlanSQL), and the writes of small batches merged
// (the write pool).
func TestPlannedOnce(t *testing.T) {
	url := pgtest.Open(t)
	populate(t, url, 20000)
	logged(t, url)
	s := openStore(t, url)
	ctx := context.Background()
	var gets sync.WaitGroup
	for c := range 16 {
		gets.Go(func() {
			for i := range 20 {
				key := engine.ObjectKey{Resource: pipes, Namespace: "default", Name: fmt.Sprintf("p%d", 1+c*20+i)}
				if _, err := s.Get(ctx, key); err != nil {
					t.Error(err)
				}
			}
		})
	}
	gets.Wait()
	writeInSmallBatches(t, s)
	tests := []struct {
		name       string
		pool       int
		sql, index string
		args       []string
	}{
		{"poll", postgres.BackgroundPool, postgres.PollSQL, "Index Scan using events_pkey on events", []string{"(0, 1000, '{}', true)", "(19990, 1000, '{}', true)"}},
		{"gets", postgres.RequestPool, postgres.GetsSQL, "Index Scan using objects_pkey on objects", []string{"('{pipes.example.com}', '{default}', '{p1}')"}},
		// The merged creates and updates: their plans counted, not shown
		// (a dozen array arguments each); the deletes' shown too.
		{"creates", postgres.WritePool, postgres.CreatesSQL, "", nil},
		{"updates", postgres.WritePool, postgres.UpdatesSQL, "", nil},
		{"deletes", postgres.WritePool, postgres.DeletesSQL, "Index Scan using objects_pkey on objects",
			[]string{"('{pipes.example.com}', '{default}', '{p1}', '{0}')"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The counts are a connection's own: one busy at the time (the
			// poller's, reading the log again) is not counted, so look again.
			var generic, custom int64
			var err error
			for range 50 {
				if generic, custom, err = postgres.PlansMade(ctx, s, tt.pool, tt.sql); err != nil || generic > 0 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err != nil {
				t.Fatal(err)
			}
			if generic == 0 || custom != 0 {
				t.Errorf("%d generic and %d custom plans, want generic plans only", generic, custom)
			}
			plans, err := postgres.GenericPlans(ctx, s, tt.sql, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			for _, plan := range plans {
				if !strings.Contains(plan, tt.index) || strings.Contains(plan, "Seq Scan on events") || strings.Contains(plan, "Seq Scan on objects") {
					t.Errorf("the generic plan does not use %s:\n%s", tt.index, plan)
				}
			}
		})
	}
}

// writeInSmallBatches writes pipes in batches of two creates, two updates
// and two deletes, each pair merged into one statement (see groupWrites),
// more often than PostgreSQL plans a prepared statement before it weighs
// a generic plan.
func writeInSmallBatches(t *testing.T, s *postgres.Store) {
	t.Helper()
	ctx := context.Background()
	createNamespace(t, s, "default")
	for b := range 8 {
		var objs [4]engine.Object
		for i := range objs {
			obj, err := s.Get(ctx, engine.ObjectKey{Resource: pipes, Namespace: "default", Name: fmt.Sprintf("p%d", 1001+b*4+i)})
			if err != nil {
				t.Fatal(err)
			}
			objs[i] = obj
		}
		errs := make([]error, 6)
		postgres.InOneBatch(s, nil,
			func() { _, errs[0] = s.Create(ctx, newObject(pipes, "default", fmt.Sprintf("new-%d-a", b), nil)) },
			func() { _, errs[1] = s.Create(ctx, newObject(pipes, "default", fmt.Sprintf("new-%d-b", b), nil)) },
			func() { _, errs[2] = s.Update(ctx, objs[0]) },
			func() { _, errs[3] = s.Update(ctx, objs[1]) },
			func() { _, errs[4] = s.Delete(ctx, objs[2]) },
			func() { _, errs[5] = s.Delete(ctx, objs[3]) },
		)
		for i, err := range errs {
			if err != nil {
				t.Fatalf("batch %d, write %d: %v", b, i, err)
			}
		}
	}
}
