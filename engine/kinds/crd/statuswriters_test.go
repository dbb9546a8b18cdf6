package crd_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kinds/crd"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

// heldStore is a process's store whose updates of the test's
// CustomResourceDefinitions (things.g*: the controller's status writes)
// call hold first; those the process publishes for its definition files
// pass.
type heldStore struct {
	*postgres.Store
	hold func(ctx context.Context)
}

func (s heldStore) Update(ctx context.Context, obj engine.Object) (engine.Object, error) {
	if obj.Key.Resource == crd.GroupResource && strings.HasPrefix(obj.Key.Name, "things.g") {
		s.hold(ctx)
	}
	return s.Store.Update(ctx, obj)
}

// TestStatusWritesWaitTogether: the controller writes the statuses of
// several definitions at once, not in turn: each write waits for its
// commit, and one after another they held the next definitions back from
// being served.
func TestStatusWritesWaitTogether(t *testing.T) {
	db := pgtest.Open(t)
	// a stores the definitions, and never writes their statuses.
	a := startProcessThrough(t, db, shipped, func(s *postgres.Store) engine.Store {
		return heldStore{Store: s, hold: func(ctx context.Context) { <-ctx.Done() }}
	})
	for i := range 2 {
		a.must(http.StatusCreated, http.MethodPost, crds, string(crdJSON(fmt.Sprintf("g%d.example.com", i), "things", "Thing")))
	}
	// b writes both: each write waits until the other waits too (or 10 s).
	var waiting atomic.Int32
	var once sync.Once
	both := make(chan struct{})
	b := startProcessThrough(t, db, shipped, func(s *postgres.Store) engine.Store {
		return heldStore{Store: s, hold: func(ctx context.Context) {
			defer waiting.Add(-1)
			if waiting.Add(1) == 2 {
				once.Do(func() { close(both) })
			}
			select {
			case <-both:
			case <-time.After(10 * time.Second): // a bound, not a measure
			case <-ctx.Done():
			}
		}}
	})
	for i := range 2 {
		conditions(t, b, fmt.Sprintf("things.g%d.example.com", i), "NamesAccepted=True:NoConflicts", "Established=True:InitialNamesAccepted")
	}
	select {
	case <-both:
	default:
		t.Fatal("the two statuses were written one after the other")
	}
}
