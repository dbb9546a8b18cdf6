package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
)

// createPadded creates n pipes of about 1.2 KB in default, named p0000...
func createPadded(t *testing.T, s *postgres.Store, n int) {
	t.Helper()
	createNamespace(t, s, "default")
	for i := range n {
		obj := newObject(pipes, "default", fmt.Sprintf("p%04d", i), nil)
		obj.Body, _ = sjson.SetBytes(obj.Body, "spec.pad", strings.Repeat("x", 1000))
		mustCreate(t, s, obj)
	}
}

// TestSlowReadersHoldNoConnection: lists whose readers stop reading (a
// client that never reads its socket) hold no pool connection, however
// many there are: every other request is still served, lists included.
func TestSlowReadersHoldNoConnection(t *testing.T) {
	s := newStore(t)
	createPadded(t, s, 1500) // 1.7 MB: more than a list queues for its reader
	const readers = 24       // three times the pool of a 2-core machine
	stuck := make(chan struct{})
	var started, done sync.WaitGroup
	counts := make([]int, readers)
	for i := range readers {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			_, err := s.List(context.Background(), engine.ListOptions{Resource: pipes, Namespace: "default"}, func(engine.Object) error {
				if counts[i]++; counts[i] == 1 {
					started.Done()
					<-stuck // the reader stops reading here
				}
				return nil
			})
			if err != nil {
				t.Errorf("list %d: %v", i, err)
			}
		}()
	}
	started.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Get(ctx, engine.ObjectKey{Resource: pipes, Namespace: "default", Name: "p0001"}); err != nil {
		t.Errorf("get while %d readers are stuck: %v", readers, err)
	}
	if _, err := s.Create(ctx, newObject(pipes, "default", "late", nil)); err != nil {
		t.Errorf("create while %d readers are stuck: %v", readers, err)
	}
	n := 0
	if _, err := s.List(ctx, engine.ListOptions{Resource: pipes, Namespace: "default"}, func(engine.Object) error { n++; return nil }); err != nil || n != 1501 {
		t.Errorf("list while %d readers are stuck: %d objects, %v", readers, n, err)
	}
	close(stuck)
	done.Wait()
	for i, n := range counts {
		if n != 1500 {
			t.Errorf("list %d read %d objects, want the 1500 of its state", i, n)
		}
	}
}

// TestListInSegmentsIsTheSameList: a list whose reader pauses long enough
// for the list to be read in segments answers exactly what a list at its
// resourceVersion answers, page by page, though objects are written,
// deleted and created while it pauses.
func TestListInSegmentsIsTheSameList(t *testing.T) {
	s := newStore(t)
	createPadded(t, s, 1500)
	writes := 0 // across the subtests: each write changes other objects
	for _, limit := range []int64{0, 1000} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			var slow []string
			opts := engine.ListOptions{Resource: pipes, Namespace: "default", Limit: limit}
			meta, err := s.List(context.Background(), opts, func(obj engine.Object) error {
				slow = append(slow, obj.Key.Name+"@"+bodyRV(obj.Body))
				if len(slow)%600 == 1 { // pauses longer than the list waits for its reader
					writes++
					changeWhileListing(t, s, writes)
					time.Sleep(2 * postgres.PumpGrace)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			fastOpts := opts
			fastOpts.ResourceVersion, fastOpts.ResourceVersionMatch = fmt.Sprint(meta.ResourceVersion), engine.MatchExact
			var fast []string
			fastMeta, err := s.List(context.Background(), fastOpts, func(obj engine.Object) error {
				fast = append(fast, obj.Key.Name+"@"+bodyRV(obj.Body))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(slow, " ") != strings.Join(fast, " ") {
				t.Errorf("a list read in segments differs from the list at its resourceVersion:\n%d objects, %d objects", len(slow), len(fast))
			}
			if (meta.Continue == "") != (fastMeta.Continue == "") || fmt.Sprint(deref(meta.RemainingItemCount)) != fmt.Sprint(deref(fastMeta.RemainingItemCount)) {
				t.Errorf("continue %q, remaining %v; at its resourceVersion: %q, %v", meta.Continue, deref(meta.RemainingItemCount),
					fastMeta.Continue, deref(fastMeta.RemainingItemCount))
			}
		})
	}
}

// changeWhileListing updates an object ahead of the reader, deletes one
// and creates one, the n-th time.
func changeWhileListing(t *testing.T, s *postgres.Store, n int) {
	t.Helper()
	ctx := context.Background()
	key := func(i int) engine.ObjectKey {
		return engine.ObjectKey{Resource: pipes, Namespace: "default", Name: fmt.Sprintf("p%04d", i)}
	}
	obj, err := s.Get(ctx, key(1400-n))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, obj); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, engine.Object{Key: key(1300 - n)}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, newObject(pipes, "default", fmt.Sprintf("p%04d-new-%d", 1200, n), nil))
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
