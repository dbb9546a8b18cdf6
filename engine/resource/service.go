// Package resource is the request pipeline every kind shares. On a write it
// checks apiVersion, kind and namespace against the request, fills and
// validates metadata, prunes, defaults and validates against the version's
// schema, converts to the storage version and stores. On a read it converts
// what is stored to the requested version. It holds no per-kind Go types:
// objects stay JSON bytes throughout.
package resource

import (
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// Service runs the pipeline against a Store.
type Service struct {
	Store engine.Store
	// Now is the clock for creationTimestamp and deletionTimestamp.
	Now func() time.Time
	// Checks holds the rules of some resources that their schemas cannot
	// express (a CustomResourceDefinition's name is <plural>.<group>). Set
	// it before the Service serves writes.
	Checks map[engine.GroupResource]Check

	namespacesPoked chan struct{} // see FinalizeNamespaces
}

// Check returns the problems of an object about to be created or updated,
// in the target's version, after it passed its schema. They are answered
// with a 422, like the schema's. Warnings are sent with a write that
// succeeds. A status-only write is not checked: it cannot change what the
// rule is about.
type Check func(obj []byte) (problems []engine.FieldError, warnings []string)

// New returns a Service over store with the wall clock.
func New(store engine.Store) *Service {
	return &Service{Store: store, Now: time.Now, namespacesPoked: make(chan struct{}, 1)}
}

// Target is what a request addresses: a resource in one of its versions,
// resolved against the registry snapshot the request started with, and the
// namespace from the URL ("" for cluster-scoped resources and for lists across
// all namespaces).
type Target struct {
	Resource  *registry.Resource
	Version   *registry.Version
	Namespace string
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

	finalize bool // set by Finalize: the write may change a namespace's spec.finalizers
}

// Result is a written or read object in the requested version, with the
// warnings to send as Warning headers.
type Result struct {
	Object   []byte
	Warnings []string
}
