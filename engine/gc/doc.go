// Package gc is the garbage collector of ownerReferences, as
// kube-controller-manager's: an object whose owners are all gone is
// deleted (background deletion, also for an owner that never existed, but
// not for an owner of a kind or version the server does not serve);
// an owner deleted with propagationPolicy=Foreground waits, marked with
// the foregroundDeletion finalizer, until its dependents are deleted (those
// with blockOwnerDeletion block it); one deleted with Orphan waits, with
// the orphan finalizer, until its dependents no longer name it.
//
// It holds nothing per object: every question is one SQL statement over
// the objects table, through partial indexes, paged a few hundred objects
// at a time (Store), so that it works the same at 1,000,000 objects. It
// acts as a client would, through the resource.Service (deletes with a UID
// precondition, JSON patches with test operations), so that every write it
// makes passes the write pipeline, and one process at a time runs a pass,
// under a Store lock, as the namespace finalizer does.
package gc
