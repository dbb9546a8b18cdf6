package gc

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/internal/wait"
)

// Store is what the collector asks of storage (postgres.Store has it).
// Each query returns at most limit objects after the key after (the zero
// key: from the first), in (resource, namespace, name) order.
type Store interface {
	// TryLock is engine.Store's.
	TryLock(ctx context.Context, name string) (release func(), ok bool, err error)
	// OwnedBy returns the objects whose ownerReferences name uid.
	OwnedBy(ctx context.Context, uid string, after engine.ObjectKey, limit int) ([]engine.Object, error)
	// Ownerless returns the objects with ownerReferences none of which
	// names an object that exists in the dependent's namespace or in none.
	Ownerless(ctx context.Context, after engine.ObjectKey, limit int) ([]engine.Object, error)
	// PartlyOwned returns the objects with an owner that exists and a
	// reference to one that does not.
	PartlyOwned(ctx context.Context, after engine.ObjectKey, limit int) ([]engine.Object, error)
	// PresentOwners returns the uids of the object's owners that exist.
	PresentOwners(ctx context.Context, key engine.ObjectKey) ([]string, error)
	// Finalizing returns the objects marked for deletion with the
	// foregroundDeletion or orphan finalizer.
	Finalizing(ctx context.Context, after engine.ObjectKey, limit int) ([]engine.Object, error)
}

// Snapshots gives the current registry snapshot (*reload.Reloader and
// an atomic.Pointer have it).
type Snapshots interface {
	Load() *registry.Snapshot
}

// pageSize is how many objects a query returns at most: what the
// collector holds at a time.
const pageSize = 500

// pokeDelay is how long a pass waits after the delete that woke it, so
// that a burst of deletes (a namespace emptied, a deletecollection, a
// controller's cleanup) is looked at by one pass, not by one pass per
// delete: a pass is three queries under a lock, and back-to-back passes
// cost a stream of deletes more than the deletes themselves. kube's
// collector, driven by informers and a work queue, is no quicker.
const pokeDelay = 50 * time.Millisecond

// lockName is the Store lock a pass runs under.
const lockName = "garbage-collector"

// manager is the field manager of the collector's writes.
const manager = "garbage-collector"

// Collector collects garbage. Build it with New.
type Collector struct {
	service   *resource.Service
	store     Store
	snapshots Snapshots
	poked     chan struct{}
}

// New returns a Collector over service and store, which looks whenever
// a delete goes through service.
func New(service *resource.Service, store Store, snapshots Snapshots) *Collector {
	c := &Collector{service: service, store: store, snapshots: snapshots, poked: make(chan struct{}, 1)}
	service.OnDelete(func(engine.ObjectKey) { c.poke() })
	return c
}

// Run collects until ctx ends: shortly after deletes through its Service
// (pokeDelay), and every interval besides (for deletes through other
// processes, owners that never existed, and a pass another process held
// the lock for). A pass that did something is followed by another at
// once: a chain of owners goes one level a pass.
func (c *Collector) Run(ctx context.Context, interval time.Duration, logger *slog.Logger) {
	for {
		did, err := c.Pass(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Warn("collecting garbage", "err", err)
		}
		if did > 0 && ctx.Err() == nil {
			continue
		}
		select {
		case <-c.poked:
			if !wait.Sleep(ctx, pokeDelay) {
				return
			}
		case <-time.After(interval):
		case <-ctx.Done():
			return
		}
	}
}

func (c *Collector) poke() {
	select {
	case c.poked <- struct{}{}:
	default: // a look is due already
	}
}

// Pass makes one pass, unless another process is making one, and returns
// how many writes it made: owners deleted in foreground or orphaning,
// then dependents whose owners are gone, then the references to gone
// owners of dependents that have others.
func (c *Collector) Pass(ctx context.Context) (int, error) {
	release, ok, err := c.store.TryLock(ctx, lockName)
	if err != nil || !ok {
		return 0, err
	}
	defer release()
	p := &pass{Collector: c, snap: c.snapshots.Load()}
	p.resources = map[engine.GroupResource]*registry.Resource{}
	for _, r := range p.snap.Resources() {
		p.resources[r.GroupResource()] = r
	}
	err = errors.Join(p.finalizeOwners(ctx), p.collectOwnerless(ctx), p.trimReferences(ctx))
	return p.did, err
}

// pass is one pass over one snapshot.
type pass struct {
	*Collector
	snap      *registry.Snapshot
	resources map[engine.GroupResource]*registry.Resource
	did       int
}

// pages calls each for every object fetch returns, a page at a time.
func pages(fetch func(after engine.ObjectKey) ([]engine.Object, error), each func(engine.Object) error) error {
	var after engine.ObjectKey
	for {
		page, err := fetch(after)
		if err != nil {
			return err
		}
		for _, o := range page {
			if err := each(o); err != nil {
				return err
			}
		}
		if len(page) < pageSize {
			return nil
		}
		after = page[len(page)-1].Key
	}
}

// target addresses a stored object in its resource's storage version;
// false when the snapshot no longer serves its resource.
func (p *pass) target(key engine.ObjectKey) (resource.Target, bool) {
	r, ok := p.resources[key.Resource]
	if !ok {
		return resource.Target{}, false
	}
	v, ok := r.Version(r.StorageVersion)
	return resource.Target{Resource: r, Version: v, Namespace: key.Namespace}, ok
}

// settled says whether err leaves nothing to do now: the object went or
// changed since it was read (the next pass sees it as it is).
func settled(err error) bool {
	switch engine.ErrorCode(err) {
	case engine.CodeNotFound, engine.CodeConflict, engine.CodeInvalid:
		return true
	}
	return false
}
