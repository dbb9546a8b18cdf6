package resource

import (
	"context"
	"strconv"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
)

// memStore is an engine.Store in memory, enough for the write pipeline:
// Get, Create, Update, Delete and an unfiltered List. It counts writes, so
// that a test can tell a write that wrote nothing.
type memStore struct {
	objects map[engine.ObjectKey]engine.Object
	rv      int64
	writes  int
}

var _ engine.Store = (*memStore)(nil)

func newMemStore() *memStore { return &memStore{objects: map[engine.ObjectKey]engine.Object{}} }

func (m *memStore) Get(_ context.Context, key engine.ObjectKey) (engine.Object, error) {
	o, ok := m.objects[key]
	if !ok {
		return engine.Object{}, engine.NewNotFound(key.Resource, key.Name)
	}
	return o, nil
}

func (m *memStore) List(_ context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error) {
	for _, o := range m.objects {
		if o.Key.Resource == opts.Resource && (opts.Namespace == "" || o.Key.Namespace == opts.Namespace) {
			if err := each(o); err != nil {
				return engine.ListMeta{}, err
			}
		}
	}
	return engine.ListMeta{ResourceVersion: m.rv}, nil
}

func (m *memStore) Create(_ context.Context, o engine.Object) (engine.Object, error) {
	if _, ok := m.objects[o.Key]; ok {
		return engine.Object{}, engine.NewAlreadyExists(o.Key.Resource, o.Key.Name)
	}
	return m.put(o)
}

func (m *memStore) Update(_ context.Context, o engine.Object) (engine.Object, error) {
	cur, ok := m.objects[o.Key]
	if !ok {
		return engine.Object{}, engine.NewNotFound(o.Key.Resource, o.Key.Name)
	}
	if cur.ResourceVersion != o.ResourceVersion {
		return engine.Object{}, engine.NewConflict(o.Key.Resource, o.Key.Name, "stale")
	}
	return m.put(o)
}

func (m *memStore) Delete(_ context.Context, last engine.Object) (engine.Object, error) {
	key, expectedRV := last.Key, last.ResourceVersion
	cur, ok := m.objects[key]
	if !ok {
		return engine.Object{}, engine.NewNotFound(key.Resource, key.Name)
	}
	if expectedRV != 0 && cur.ResourceVersion != expectedRV {
		return engine.Object{}, engine.NewConflict(key.Resource, key.Name, "stale")
	}
	delete(m.objects, key)
	m.writes++
	m.rv++
	return cur, nil
}

func (m *memStore) Watch(context.Context, engine.WatchOptions) (<-chan engine.Event, error) {
	return nil, engine.Errorf(engine.CodeInternal, "memStore does not watch")
}

func (m *memStore) TryLock(context.Context, string) (func(), bool, error) {
	return func() {}, true, nil
}

func (m *memStore) put(o engine.Object) (engine.Object, error) {
	m.rv++
	m.writes++
	body, err := sjson.SetBytes(o.Body, "metadata.resourceVersion", strconv.FormatInt(m.rv, 10))
	if err != nil {
		return engine.Object{}, err
	}
	o.Body, o.ResourceVersion = body, m.rv
	m.objects[o.Key] = o
	return o, nil
}
