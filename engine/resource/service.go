// Package resource is the request pipeline every kind shares. On a write it
// checks apiVersion, kind and namespace against the request, fills and
// validates metadata, prunes, defaults and validates against the version's
// schema, converts to the storage version and stores. On a read it converts
// what is stored to the requested version. It holds no per-kind Go types:
// objects stay JSON bytes throughout.
package resource

import (
	"context"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admission"
	"github.com/dynapi/dynapi/engine/meta"
	"github.com/dynapi/dynapi/engine/objcache"
	"github.com/dynapi/dynapi/engine/registry"
)

// Service runs the pipeline against a Store. The Store is its own: every
// write, the background work's too (namespace finalizer, garbage
// collector, CustomResourceDefinition status), goes through the pipeline,
// so that none skips managedFields, generation or a strategy; background
// work reads stored objects through ListStored and takes its locks
// through TryLock.
type Service struct {
	storage engine.Store
	// Now is the clock for creationTimestamp and deletionTimestamp.
	Now func() time.Time
	// GenerateName makes a name from metadata.generateName.
	GenerateName func(base string) string
	// ConversionWebhooks converts the kinds whose definitions name a
	// conversion webhook; nil: their objects cannot be converted, and
	// what needs it fails (registry.ErrWebhookNotCalled).
	ConversionWebhooks WebhookConverter

	strategies map[engine.GroupResource]Strategy
	cache      *objcache.Cache  // nil: none (see SetCacheBytes)
	admission  *admission.Chain // nil: none (see SetAdmission)
	onRemove   []func(engine.ObjectKey)
	onDelete   []func(engine.ObjectKey)
	onCreate   []func(engine.ObjectKey)
	guards     []CreateGuard
}

// New returns a Service over store with the wall clock and a cache of
// stored objects of objcache.DefaultMaxBytes (see SetCacheBytes).
func New(store engine.Store) *Service {
	return &Service{storage: store, Now: time.Now, GenerateName: meta.GenerateName, strategies: map[engine.GroupResource]Strategy{},
		cache: objcache.New(objcache.DefaultMaxBytes)}
}

// ListStored streams the stored objects opts selects to each, as stored
// (storage version, not converted), across resources when opts names
// none: for background work that looks at objects whatever their kind (a
// namespace being emptied). It writes nothing; writes go through Create,
// Update, Patch and Delete. Errors: those of engine.Store.List.
func (s *Service) ListStored(ctx context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error) {
	return s.storage.List(ctx, opts, each)
}

// TryLock is the store's lock (engine.Store.TryLock), for background work
// that one process at a time does (a namespace emptied).
func (s *Service) TryLock(ctx context.Context, name string) (release func(), ok bool, err error) {
	return s.storage.TryLock(ctx, name)
}

// Register makes s the strategy of resource gr. Register every strategy
// before the Service serves requests.
func (s *Service) Register(gr engine.GroupResource, st Strategy) { s.strategies[gr] = st }

// Strategy returns the strategy of resource gr: the registered one, or
// CustomResource.
func (s *Service) Strategy(gr engine.GroupResource) Strategy {
	if st, ok := s.strategies[gr]; ok {
		return st
	}
	return CustomResource{}
}

// OnRemove calls f with the key of every object removed after it was
// marked for deletion (its last finalizer gone): whoever waits for it (a
// namespace being emptied) may go on. f must not block. Call it before the
// Service serves requests.
func (s *Service) OnRemove(f func(engine.ObjectKey)) { s.onRemove = append(s.onRemove, f) }

// OnDelete calls f with the key of every object deleted or marked for
// deletion through the Service (not on dry run): whoever cleans up after
// deletes (the garbage collector) may look now. f must not block. Call it
// before the Service serves requests.
func (s *Service) OnDelete(f func(engine.ObjectKey)) { s.onDelete = append(s.onDelete, f) }

// OnCreate calls f with the key of every object created through the
// Service (not on dry run): whoever keeps objects beside others (the
// default ServiceAccount of a new namespace) may look now. f must not
// block. Call it before the Service serves requests.
func (s *Service) OnCreate(f func(engine.ObjectKey)) { s.onCreate = append(s.onCreate, f) }

// CreateGuard refuses a create of resource gr (name: the object's
// metadata.name, "" when generated) with the error to answer, or lets it
// go on with nil.
type CreateGuard func(gr engine.GroupResource, name string) error

// GuardCreates makes g decide every create first, before admission, as
// kube-apiserver refuses a create of a custom resource whose definition is
// being deleted. g must not block. Call it before the Service serves
// requests.
func (s *Service) GuardCreates(g CreateGuard) { s.guards = append(s.guards, g) }

func (s *Service) created(key engine.ObjectKey) {
	for _, f := range s.onCreate {
		f(key)
	}
}

func (s *Service) deleted(key engine.ObjectKey) {
	for _, f := range s.onDelete {
		f(key)
	}
}

func (s *Service) removed(key engine.ObjectKey) {
	for _, f := range s.onRemove {
		f(key)
	}
}

// Target is what a request addresses: a resource in one of its versions,
// resolved against the registry snapshot the request started with, and the
// namespace from the URL ("" for cluster-scoped resources and for lists across
// all namespaces).
type Target struct {
	Resource  *registry.Resource
	Version   *registry.Version
	Namespace string
	// Subresource is the subresource a write addresses ("status", or one
	// of the strategy's), "" for the resource itself.
	Subresource string
}

// GroupResource is the storage key of the target's resource.
func (t Target) GroupResource() engine.GroupResource { return t.Resource.GroupResource() }

// APIVersion is the apiVersion of objects in the requested version.
func (t Target) APIVersion() string {
	return engine.GroupVersionKind{Group: t.Resource.Group, Version: t.Version.Name}.APIVersion()
}

func (t Target) key(name string) engine.ObjectKey {
	return engine.ObjectKey{Resource: t.GroupResource(), Namespace: t.Namespace, Name: name}
}

// WriteOptions are the query parameters of create, update and patch.
type WriteOptions struct {
	// DryRun runs every step but the write (dryRun=All).
	DryRun bool
	// FieldValidation is "Strict", "Warn" (the default) or "Ignore": what an
	// unknown field in the request earns.
	FieldValidation string
	// FieldManager is the manager managedFields record the write under:
	// the fieldManager parameter, or what the client's User-Agent names.
	FieldManager string
	// Force takes over fields other managers own (apply only).
	Force bool
	// YAMLDuplicates are the duplicate keys of a YAML body, in the words
	// of kube-apiserver's strict YAML decoder (`line 6: key "name" already
	// set in map`), reported as FieldValidation asks.
	YAMLDuplicates []string
}

// Result is a written or read object in the requested version, with the
// warnings to send as Warning headers.
type Result struct {
	Object   []byte
	Warnings []string
	// Created says that a patch (server-side apply) created the object.
	Created bool
}
