package engine

import (
	"context"
	"time"
)

// Store keeps objects and their history. Every write takes a new cluster-wide,
// strictly increasing resourceVersion. Implementations must be safe for
// concurrent use by many requests and by several processes sharing the data.
type Store interface {
	// Get returns the current object. Errors: NotFound.
	Get(ctx context.Context, key ObjectKey) (Object, error)
	// List calls each for every object matching opts, in key order
	// (namespace, name), and returns the list's metadata. Errors: Gone/Expired
	// for a continue token whose history was compacted, BadRequest for a bad token.
	List(ctx context.Context, opts ListOptions, each func(Object) error) (ListMeta, error)
	// Create stores a new object. A namespaced object's namespace must exist.
	// Errors: AlreadyExists; NotFound when the namespace does not exist.
	Create(ctx context.Context, obj Object) (Object, error)
	// Update replaces an object if its current resourceVersion equals
	// obj.ResourceVersion. Errors: NotFound, Conflict.
	Update(ctx context.Context, obj Object) (Object, error)
	// Delete removes the object at last.Key and returns its last state, at
	// the delete's resourceVersion. A non-zero last.ResourceVersion is a
	// precondition, and last must then be the object as stored at it: the
	// store answers with it rather than read it back. Errors: NotFound,
	// Conflict.
	Delete(ctx context.Context, last Object) (Object, error)
	// Watch streams every change to opts.Resource (in opts.Namespace, or all
	// namespaces) after opts.ResourceVersion, in resourceVersion order, each
	// exactly once, until ctx ends. The channel is closed at the end; a
	// stream that ends for another reason (the watcher fell behind) ends
	// with an EventError. Errors: Expired when opts.ResourceVersion is older
	// than the history kept.
	Watch(ctx context.Context, opts WatchOptions) (<-chan Event, error)
	// TryLock takes the lock name, shared by every process on the data,
	// unless another holder has it (ok false), until release is called. A
	// process that dies releases its locks. Background work that one
	// process should do at a time (emptying a namespace) takes one.
	TryLock(ctx context.Context, name string) (release func(), ok bool, err error)
}

// WatchOptions selects the changes a Watch streams.
type WatchOptions struct {
	Resource  GroupResource
	Namespace string
	// ResourceVersion: changes after it are sent.
	ResourceVersion int64
	// ProgressInterval, when set, asks for an EventBookmark at least this
	// often, carrying the resourceVersion up to which every change has been
	// sent (even when none concerned this watch).
	ProgressInterval time.Duration
}

// EventType is the type of a watch event, as Kubernetes names it.
type EventType string

// Event types.
const (
	EventAdded    EventType = "ADDED"
	EventModified EventType = "MODIFIED"
	EventDeleted  EventType = "DELETED"
	EventBookmark EventType = "BOOKMARK"
	EventError    EventType = "ERROR"
)

// Event is one change. Object is the new state; for EventDeleted, the last
// state with the delete's resourceVersion. Prev is the state before the
// change (nil for EventAdded), so that a filtered watch can tell an object
// that stopped matching. An EventBookmark carries only
// Object.ResourceVersion; an EventError carries Err.
type Event struct {
	Type              EventType
	Object            Object
	Prev              []byte
	PrevStoredVersion string
	PrevRemainder     []byte
	Err               error
}

// ListOptions selects objects for List. A zero Resource lists every resource
// (used to empty a namespace); an empty Namespace lists all namespaces.
type ListOptions struct {
	Resource  GroupResource
	Namespace string
	Labels    []Requirement
	Fields    []FieldRequirement
	// BodyFields narrow the list by fields of the stored bodies, so that the
	// store can use its indexes: each Path is a dotted path into the body
	// as stored ("spec.color"), compared as field selectors compare: the
	// field's text ("red", "true", "3"; "" when it is missing or null).
	// When BodyFieldsVersion is set, they apply only to objects stored in
	// that version; objects stored in another version pass them (the field
	// may be elsewhere in their bodies), and the caller filters those.
	BodyFields        []FieldRequirement
	BodyFieldsVersion string
	// Limit caps the number of objects returned (0: no limit); Continue resumes
	// a previous List from its ListMeta.Continue.
	Limit    int64
	Continue string
	// ResourceVersion and ResourceVersionMatch have metav1.ListOptions'
	// semantics: unset is a consistent read of the latest state; "0" is any
	// recent state; N with NotOlderThan (the default) a state at least as
	// new as N; N with Exact the state at exactly N.
	ResourceVersion      string
	ResourceVersionMatch string
	// MetadataOnly asks for each object's metadata alone (Body is the
	// JSON of its metadata field) and no Remainder: what a metadata-only
	// list (PartialObjectMetadataList) needs, without the rest leaving the
	// store.
	MetadataOnly bool
	// Transient says that each copies what it keeps of an object: once
	// each returns, the store may reuse the memory of its Body for the
	// next objects. A list answered straight to a client sets it.
	Transient bool
}

// ResourceVersionMatch values.
const (
	MatchNotOlderThan = "NotOlderThan"
	MatchExact        = "Exact"
)

// ListMeta describes a List result the way metav1.ListMeta does.
type ListMeta struct {
	ResourceVersion    int64
	Continue           string
	RemainingItemCount *int64
}

// Operator is a label or field selector operator.
type Operator string

// Selector operators, as in k8s.io/apimachinery/pkg/selection.
const (
	OpEquals       Operator = "="
	OpNotEquals    Operator = "!="
	OpIn           Operator = "in"
	OpNotIn        Operator = "notin"
	OpExists       Operator = "exists"
	OpDoesNotExist Operator = "!"
	// OpGreaterThan and OpLessThan compare a label's value as an integer;
	// a label whose value is not one does not match.
	OpGreaterThan Operator = "gt"
	OpLessThan    Operator = "lt"
)

// Requirement is one term of a label selector; all terms must hold.
type Requirement struct {
	Key      string
	Operator Operator
	Values   []string
}

// FieldRequirement is one term of a field selector. Path is "metadata.name",
// "metadata.namespace" or a selectable field's path (in ListOptions.Fields),
// or a path into a stored body (in ListOptions.BodyFields); Operator is
// OpEquals or OpNotEquals.
type FieldRequirement struct {
	Path     string
	Operator Operator
	Value    string
}
