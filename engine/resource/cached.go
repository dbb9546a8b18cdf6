package resource

import (
	"context"
	"errors"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/objcache"
)

// The cache of stored objects (package objcache) spares an update, a
// patch or a delete its read of the object: the write starts from the
// object as this process last wrote or read it, and the store's write,
// conditioned on that object's resourceVersion, fails if it is not the
// latest. Then, as kube-apiserver's GuaranteedUpdate does with its
// cachedExistingObject, the write reads the object from the database and
// runs again over it: no answer is built on an entry that may be stale.
// Reads (get, list, watch) never use it.

// errUnverified ends a write over a cached entry that would store nothing
// (an update that changes nothing, a second delete of a marked object)
// when the database no longer has the entry (see verify): the write runs
// again over the object read from it.
var errUnverified = errors.New("write over a cached object stores nothing: verify it")

// verify lets a write that stores nothing answer: at once when its
// stored object came from the database, else once the database still
// has the entry, read through the current encryption key (else a no-op
// update would not rewrite it, see storedAsWritten), as kube's
// GuaranteedUpdate reads again before it skips a write over its cached
// object. Errors: errUnverified when it has not, and the write must run
// again over the database's object.
func (s *Service) verify(ctx context.Context, w *Write) error {
	if !w.cached {
		return nil
	}
	cur := s.load(ctx, w.stored.Key)
	if cur.err != nil || cur.obj.ResourceVersion != w.stored.ResourceVersion || cur.obj.Stale {
		return errUnverified
	}
	return nil
}

// stored is the object a write starts from, or the error reading it.
type stored struct {
	obj    engine.Object
	err    error
	cached bool
}

// guarded runs write over the stored object at key: first over the
// cache's entry, when useCache and accept (nil: any entry) let it, then,
// should that fail, over the object read from the database, unless it
// is still the entry (same resourceVersion): then the failure is the
// answer, as the write saw the latest object.
func guarded[T any](s *Service, ctx context.Context, key engine.ObjectKey, useCache bool, accept func(engine.Object) bool,
	write func(stored) (T, error)) (T, error) {
	entry, ok := s.entry(key, useCache, accept)
	if !ok {
		return write(s.load(ctx, key))
	}
	res, err := write(stored{obj: entry, cached: true})
	if err == nil {
		return res, nil
	}
	cur := s.load(ctx, key)
	if cur.err == nil && cur.obj.ResourceVersion == entry.ResourceVersion && !errors.Is(err, errUnverified) {
		return res, err
	}
	return write(cur)
}

// entry is the cache's entry of key, when use and accept let a write
// start from it.
func (s *Service) entry(key engine.ObjectKey, use bool, accept func(engine.Object) bool) (engine.Object, bool) {
	if !use || s.cache == nil {
		return engine.Object{}, false
	}
	o, ok := s.cache.Get(key)
	if !ok || accept != nil && !accept(o) {
		return engine.Object{}, false
	}
	return o, true
}

// load reads the object at key from the database, and keeps it in the
// cache for the next write.
func (s *Service) load(ctx context.Context, key engine.ObjectKey) stored {
	o, err := s.storage.Get(ctx, key)
	if err != nil {
		s.forget(key)
		return stored{err: err}
	}
	s.remember(o)
	return stored{obj: o}
}

// remember keeps o, as the store holds it now, for the next write.
func (s *Service) remember(o engine.Object) {
	if s.cache != nil {
		s.cache.Put(o)
	}
}

// forget drops the entry of key: the object is gone, or not as cached.
func (s *Service) forget(key engine.ObjectKey) {
	if s.cache != nil {
		s.cache.Delete(key)
	}
}

// SetCacheBytes bounds the cache of stored objects that writes start
// from (objcache.DefaultMaxBytes unless set); 0 switches it off. Call it
// before the Service serves requests.
func (s *Service) SetCacheBytes(n int64) {
	s.cache = nil
	if n > 0 {
		s.cache = objcache.New(n)
	}
}

// createStored is the store's Create, the object kept for its next write.
func (s *Service) createStored(ctx context.Context, o engine.Object) (engine.Object, error) {
	created, err := s.storage.Create(ctx, o)
	if err == nil {
		s.remember(created)
	}
	return created, err
}

// updateStored is the store's Update, the cache kept as the store is.
func (s *Service) updateStored(ctx context.Context, o engine.Object) (engine.Object, error) {
	updated, err := s.storage.Update(ctx, o)
	if err != nil {
		s.forget(o.Key)
		return updated, err
	}
	s.remember(updated)
	return updated, nil
}

// deleteStored is the store's Delete, the entry dropped whatever came of it.
func (s *Service) deleteStored(ctx context.Context, stored engine.Object) (engine.Object, error) {
	last, err := s.storage.Delete(ctx, stored)
	s.forget(stored.Key)
	return last, err
}
