package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/internal/pgtest"
	"github.com/dynapi/dynapi/engine/postgres"
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
		SELECT resource_version, resource, namespace, name, 'ADDED', body, stored_version FROM objects`, "ANALYZE events")
	s := openStore(t, url)
	selector := []engine.Requirement{{Key: "group", Operator: engine.OpEquals, Values: []string{"g7"}}}
	tests := []struct {
		name            string
		opts            engine.ListOptions
		changed, unchan string
		avoid           string // in no plan
	}{
		{"1% selector", engine.ListOptions{Labels: selector}, "events_pkey", "objects_labels", ""},
		{"page", engine.ListOptions{Limit: 500}, "events_pkey", "objects_pkey", ""},
		{"next page", engine.ListOptions{Limit: 500, Continue: firstPage(t, s, 500)}, "events_pkey", "objects_pkey", ""},
		// The scan starts at the token's key, instead of reading the
		// namespace from its start and filtering with ROW(namespace, name).
		{"next page in a namespace", engine.ListOptions{Namespace: "default", Limit: 500, Continue: firstPage(t, s, 500)},
			"events_pkey", "objects_pkey", "ROW(namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Resource = pipes
			plans, err := postgres.ListPlans(context.Background(), s, tt.opts, 20000)
			if err != nil {
				t.Fatal(err)
			}
			for i, plan := range plans {
				want := []string{tt.changed, tt.unchan}[i%2]
				avoided := tt.avoid != "" && strings.Contains(plan, tt.avoid)
				if !strings.Contains(plan, want) || avoided || strings.Contains(plan, "Seq Scan on objects") || strings.Contains(plan, "Seq Scan on events") {
					t.Errorf("plan %d does not use %s:\n%s", i, want, plan)
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
		for i := 1; i < len(plans); i += 2 { // the unchanged part's, custom and generic
			if !strings.Contains(plans[i], "Index Scan using objects_pkey") || strings.Contains(plans[i], "Sort") {
				t.Errorf("%+v: plan is not an ordered scan of the primary key:\n%s", opts, plans[i])
			}
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
