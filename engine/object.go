package engine

import "strings"

// GroupVersionKind names a kind in one version of an API group.
type GroupVersionKind struct {
	Group, Version, Kind string
}

// APIVersion renders the apiVersion field: "v1" for the core group, "group/version" otherwise.
func (gvk GroupVersionKind) APIVersion() string {
	if gvk.Group == "" {
		return gvk.Version
	}
	return gvk.Group + "/" + gvk.Version
}

// GroupResource names a resource (plural) of an API group regardless of version.
// It is the unit of storage: every version of a kind shares the same rows.
type GroupResource struct {
	Group, Resource string
}

// Namespaces is the core Namespace kind's resource: declared by a
// definition file like every kind, with a lifecycle that is the server's.
var Namespaces = GroupResource{Resource: "namespaces"}

// String renders "resource.group", or "resource" for the core group, as Kubernetes does.
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// ParseAPIVersion splits an apiVersion field into group and version.
func ParseAPIVersion(apiVersion string) (group, version string) {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return "", apiVersion
	}
	return group, version
}

// ObjectKey identifies one stored object. Namespace is empty for cluster-scoped resources.
type ObjectKey struct {
	Resource  GroupResource
	Namespace string
	Name      string
}

// Object is one stored object: its JSON body as written in StoredVersion, with
// metadata.resourceVersion equal to ResourceVersion. Remainder, kept beside
// the body and never shown, holds what StoredVersion could not hold of the
// object as it was written (see package convert); nil when nothing was lost.
type Object struct {
	Key             ObjectKey
	StoredVersion   string
	ResourceVersion int64
	Body            []byte
	Remainder       []byte
	// DefaultsStamp is the StoredVersion schema's DefaultsStamp when the
	// body was written with every default of that schema (see package
	// schema), else 0: a read whose schema has that stamp skips the check
	// for missing defaults. A store that does not keep it reads 0.
	DefaultsStamp uint64
	// Stale says that the store read the object through an encryption key
	// or provider other than the one its writes now use (see
	// engine/encryption): rewriting it re-encrypts it (dynapi migrate).
	Stale bool
}
