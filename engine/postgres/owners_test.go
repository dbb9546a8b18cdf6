package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

// The garbage collector's statements can go through their partial indexes
// (migrations/0006_owner_references.sql), never needing to scan every
// object: what lets it work at 1,000,000 objects.
func TestOwnerStatementsUseTheirIndexes(t *testing.T) {
	s := openStore(t, pgtest.Open(t))
	plans, err := postgres.OwnerPlans(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for name, plan := range plans {
		t.Logf("%s:\n%s", name, plan)
	}
	for name, index := range map[string]string{"OwnedBy": "objects_owner_uids", "Ownerless": "objects_dependents", "Finalizing": "objects_gc_finalizing"} {
		plan := plans[name]
		if !strings.Contains(plan, index) || strings.Contains(plan, "Seq Scan on objects") {
			t.Errorf("%s does not use %s:\n%s", name, index, plan)
		}
	}
	if !strings.Contains(plans["Ownerless"], "objects_uid") {
		t.Errorf("Ownerless does not look owners up by uid:\n%s", plans["Ownerless"])
	}
}
