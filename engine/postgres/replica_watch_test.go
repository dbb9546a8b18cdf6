package postgres_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

// TestReplicaWatchesFromBeforeConcurrentWrites: watches started, each
// on a new resource, from a resourceVersion taken before concurrent
// writes to it, see every write exactly once, in order, while the
// poller reads the events log on a replica.
func TestReplicaWatchesFromBeforeConcurrentWrites(t *testing.T) {
	const settle = 30 * time.Second // for a missing event: a failure, not a hang
	db := pgtest.OpenReplicated(t)
	s, _ := openReplicatedStore(t, db, patient)
	createNamespace(t, s, "default")
	const rounds, writers, each = 20, 8, 5
	for round := range rounds {
		gr := engine.GroupResource{Group: "example.com", Resource: fmt.Sprintf("things%d", round)}
		meta, err := s.List(t.Context(), engine.ListOptions{Resource: gr}, func(engine.Object) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		created := map[string]int64{}
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					obj := mustCreate(t, s, newObject(gr, "default", fmt.Sprintf("w%d-%d", w, i), nil))
					mu.Lock()
					created[obj.Key.Name] = obj.ResourceVersion
					mu.Unlock()
				}
			})
		}
		events := mustWatch(t, s, engine.WatchOptions{Resource: gr, ResourceVersion: meta.ResourceVersion})
		wg.Wait()
		seen := map[string]bool{}
		prev := meta.ResourceVersion
		for len(seen) < writers*each {
			var ev engine.Event
			select {
			case ev = <-events:
			case <-time.After(settle):
				var missing []string
				for name, rv := range created {
					if !seen[name] {
						missing = append(missing, fmt.Sprintf("%s at %d", name, rv))
					}
				}
				t.Fatalf("round %d: the watch from %d saw %d of %d writes; missing %v", round, meta.ResourceVersion, len(seen), writers*each, missing)
			}
			if ev.Object.ResourceVersion <= prev || seen[ev.Object.Key.Name] || ev.Type != engine.EventAdded {
				t.Fatalf("round %d: event %s %s at %d after %d (seen before: %v)", round, ev.Type, ev.Object.Key.Name, ev.Object.ResourceVersion, prev, seen[ev.Object.Key.Name])
			}
			prev, seen[ev.Object.Key.Name] = ev.Object.ResourceVersion, true
		}
	}
}
