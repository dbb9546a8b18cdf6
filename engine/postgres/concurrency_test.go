package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

func TestConcurrentCreates(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	const writers, each = 8, 25
	var mu sync.Mutex
	seen := map[int64]string{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("w%d-%d", w, i)
				obj, err := s.Create(context.Background(), newObject(pipes, "default", name, nil))
				if err != nil {
					t.Errorf("Create %s: %v", name, err)
					return
				}
				mu.Lock()
				if other, dup := seen[obj.ResourceVersion]; dup {
					t.Errorf("rv %d given to %s and %s", obj.ResourceVersion, other, name)
				}
				seen[obj.ResourceVersion] = name
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	keys, _, err := listKeys(t, s, engine.ListOptions{Resource: pipes})
	if err != nil || len(keys) != writers*each || len(seen) != writers*each {
		t.Errorf("listed %d, distinct rvs %d, err %v; want %d", len(keys), len(seen), err, writers*each)
	}
}

// TestConcurrentUpdates has writers increment one counter with
// read-modify-write loops: compare-and-swap must lose no increment.
func TestConcurrentUpdates(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	key := mustCreate(t, s, newObject(pipes, "default", "counter", nil)).Key
	const writers, each = 6, 10
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				if err := increment(ctx, s, key); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := s.Get(ctx, key)
	if n := gjson.GetBytes(got.Body, "spec.count").Int(); err != nil || n != writers*each {
		t.Errorf("count = %d, %v; want %d", n, err, writers*each)
	}
}

// increment adds one to spec.count, retrying on Conflict.
func increment(ctx context.Context, s engine.Store, key engine.ObjectKey) error {
	for {
		cur, err := s.Get(ctx, key)
		if err != nil {
			return err
		}
		cur.Body, err = sjson.SetBytes(cur.Body, "spec.count", gjson.GetBytes(cur.Body, "spec.count").Int()+1)
		if err != nil {
			return err
		}
		_, err = s.Update(ctx, cur)
		if engine.ErrorCode(err) != engine.CodeConflict {
			return err
		}
	}
}
