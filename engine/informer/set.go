package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// Resource is one followed resource, in the version its objects are
// wanted in.
type Resource struct{ Group, Version, Resource string }

// Objects are the objects of a Set: per resource, body by Key.
type Objects map[Resource]map[string][]byte

// Snapshots hands out the current registry snapshot. When it also has
// Changed() <-chan struct{} (reload.Reloader has), a swap wakes the
// informers of a resource that was not served, as in Informer.
type Snapshots interface {
	Load() *registry.Snapshot
}

// Set follows several resources for one consumer, each with its own
// Informer, and hands all their objects to changed after each change,
// once every resource was listed: for the small sets of objects that
// configure the server, which every process must apply to every request.
type Set struct {
	snapshots Snapshots
	informers []*Informer
	changed   func(Objects)

	mu     sync.Mutex // guards objs and listed; held while changed runs
	objs   Objects
	listed map[Resource]bool
}

// NewSet returns a Set of resources, read through service; Run starts it.
// changed receives a copy it may keep.
func NewSet(service *resource.Service, snapshots Snapshots, logger *slog.Logger, resources []Resource, changed func(Objects)) *Set {
	s := &Set{snapshots: snapshots, changed: changed, objs: Objects{}, listed: map[Resource]bool{}}
	swaps := func() <-chan struct{} { return nil } // a nil channel: no swap ever
	if c, ok := snapshots.(interface{ Changed() <-chan struct{} }); ok {
		swaps = c.Changed
	}
	for _, r := range resources {
		s.objs[r] = map[string][]byte{}
		s.informers = append(s.informers, New(service, swaps, member{s, r}, logger, r.Resource))
	}
	return s
}

// Run follows every resource until ctx ends.
func (s *Set) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, in := range s.informers {
		wg.Go(func() { in.Run(ctx) })
	}
	wg.Wait()
}

// WaitSynced waits until every resource was listed once. Errors: ctx's,
// naming the resources not listed.
func (s *Set) WaitSynced(ctx context.Context) error {
	var errs []error
	for _, in := range s.informers {
		errs = append(errs, in.WaitSynced(ctx))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("wait for the first lists: %w", err)
	}
	return nil
}

// Publish hands objs to changed as if every resource had been listed
// with them, without following anything: for tests and benchmarks.
func (s *Set) Publish(objs Objects) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for r, listed := range objs {
		s.objs[r], s.listed[r] = listed, true
	}
	s.changed(s.copyLocked())
}

// publishLocked hands a copy of the objects to changed, once every
// resource was listed.
func (s *Set) publishLocked() {
	if len(s.listed) < len(s.informers) {
		return
	}
	s.changed(s.copyLocked())
}

func (s *Set) copyLocked() Objects {
	out := make(Objects, len(s.objs))
	for r, objs := range s.objs {
		out[r] = maps.Clone(objs)
	}
	return out
}

// member is the Handler of one resource of a Set.
type member struct {
	s *Set
	r Resource
}

// Target resolves the resource in the current snapshot.
func (m member) Target() (resource.Target, bool) {
	res, ver, ok := m.s.snapshots.Load().Lookup(m.r.Group, m.r.Version, m.r.Resource)
	return resource.Target{Resource: res, Version: ver}, ok
}

// Listed replaces the resource's objects; Settle publishes them.
func (m member) Listed(objects map[string][]byte) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	m.s.objs[m.r], m.s.listed[m.r] = objects, true
}

// Put keeps an added or modified object.
func (m member) Put(obj []byte) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	m.s.objs[m.r][Key(obj)] = obj
}

// Remove drops a deleted object.
func (m member) Remove(obj []byte) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	delete(m.s.objs[m.r], Key(obj))
}

// Settle publishes the objects once per list or burst of events.
func (m member) Settle() {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	m.s.publishLocked()
}

// Reconcile does nothing: a Set's consumer reads no snapshot.
func (member) Reconcile(context.Context, resource.Target) {}
