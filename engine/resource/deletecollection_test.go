package resource

import (
	"context"
	"testing"

	"github.com/dynapi/dynapi/engine"
)

// changedAfterList is a memStore whose List writes one object again after
// listing it: another client's write between a deletecollection's list
// and its deletes.
type changedAfterList struct {
	*memStore
	name string
}

func (c changedAfterList) List(ctx context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error) {
	meta, err := c.memStore.List(ctx, opts, each)
	for key, o := range c.objects {
		if key.Name == c.name {
			if _, err := c.Update(ctx, o); err != nil {
				return meta, err
			}
		}
	}
	return meta, err
}

// TestDeleteCollectionOfAChangedObject: an object written again after the
// list is deleted too, as kube-apiserver's DeleteCollection deletes each
// listed object by name, as it is then. (Skipping it on the Conflict left
// objects behind a status controller's writes.)
func TestDeleteCollectionOfAChangedObject(t *testing.T) {
	ctx := context.Background()
	r, v := shippedWidget(t)
	target := Target{Resource: r, Version: v, Namespace: "default"}
	store := changedAfterList{memStore: newMemStore(), name: "w1"}
	s := New(store)
	opts := WriteOptions{FieldValidation: FieldValidationWarn, FieldManager: "test"}
	for i := range 3 {
		if _, err := s.Create(ctx, target, namedWidget(i), opts); err != nil {
			t.Fatal(err)
		}
	}
	var deleted [][]byte
	err := s.DeleteCollection(ctx, target, engine.ListOptions{}, DeleteOptions{}, func(obj []byte) error {
		deleted = append(deleted, obj)
		return nil
	})
	if err != nil || len(deleted) != 3 || len(store.objects) != 0 {
		t.Fatalf("deleted %d, %v; %d left, want 0", len(deleted), err, len(store.objects))
	}
}
