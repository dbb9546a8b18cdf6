package resource_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

// listLimits is an engine.Store that records the limit of every List.
type listLimits struct {
	engine.Store
	limits []int64
}

func (l *listLimits) List(ctx context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error) {
	l.limits = append(l.limits, opts.Limit)
	return l.Store.List(ctx, opts, each)
}

// TestDeleteCollectionInPages: a deletecollection without a limit lists and
// deletes 500 objects at a time, so that it never holds the whole
// collection, and deletes all of it; one with a limit deletes that page.
func TestDeleteCollectionInPages(t *testing.T) {
	ctx := context.Background()
	kit := servicetest.Open(t, "ns")
	widgets := target(t, kit, "shop.example.com", "v1", "widgets")
	widgets.Namespace = "ns"
	for i := range 1001 {
		body := fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w%d"},"spec":{"size":1}}`, i)
		if _, err := kit.Service.Create(ctx, widgets, []byte(body), resource.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name        string
		limit       int64
		deleted     int
		limits      []int64
		leftAfterTC int
	}{
		{"limit", 10, 10, []int64{10}, 991},
		{"all", 0, 991, []int64{500, 500}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := &listLimits{Store: kit.Store}
			deleted := 0
			err := resource.New(store).DeleteCollection(ctx, widgets, engine.ListOptions{Limit: tc.limit}, resource.DeleteOptions{}, func([]byte) error {
				deleted++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			left := 0
			if _, err := kit.Service.ListStored(ctx, engine.ListOptions{Resource: widgets.GroupResource(), Namespace: "ns"}, func(engine.Object) error {
				left++
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if deleted != tc.deleted || left != tc.leftAfterTC || !slices.Equal(store.limits, tc.limits) {
				t.Errorf("deleted %d, %d left, lists of %v; want %d, %d, %v", deleted, left, store.limits, tc.deleted, tc.leftAfterTC, tc.limits)
			}
		})
	}
}
