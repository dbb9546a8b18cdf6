// Package namespace is the core Namespace kind's server-side behaviour, as
// kube-apiserver's namespace registry and the namespace controller have it:
// a namespace gets a phase and a name label on create, owns its
// spec.finalizers through /finalize, some namespaces may never be deleted,
// and deleting one marks it while a background Finalizer empties it. The
// kind's schema is a definition file like every other; this package plugs
// into the resource pipeline through its Strategy.
package namespace
