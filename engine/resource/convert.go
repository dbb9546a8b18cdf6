package resource

import (
	"fmt"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/convert"
	"github.com/dynapi/dynapi/engine/registry"
)

// Every version converts through the kind's hub. A kind without rules has
// one shape in all versions: only apiVersion changes (the
// CustomResourceDefinition strategy None), and nothing can be lost.

// Hub is the version r's conversions go through: its rules' hub, or the
// storage version of a kind without rules.
func Hub(r *registry.Resource) string {
	if r.Conversion == nil {
		return r.StorageVersion
	}
	return r.Conversion.Hub()
}

// fromStorage converts a stored object into the target's version.
func fromStorage(c converter, t Target, o engine.Object) ([]byte, error) {
	return storedIn(c, t.Resource, o, t.Version)
}

// storedIn converts a stored object into version v, pruned to what v
// holds.
func storedIn(c converter, r *registry.Resource, o engine.Object, v *registry.Version) ([]byte, error) {
	if r.Conversion == nil {
		body, _ := storedDefaults(r, o)
		return c.convert(r, body, o.StoredVersion, v.Name)
	}
	h, _, err := storedToHub(c, r, o)
	if err != nil {
		return nil, err
	}
	return hubIn(c, r, h, v)
}

// storedDefaults gives a stored body the defaults of the schema of the
// version it is stored in, as kube-apiserver does with every object it
// decodes from etcd, before any conversion: a field that a newer schema
// defaults appears on the objects stored before it. The row keeps its body
// until the object's next write. It reports whether a default was added;
// a version whose schema has no default costs a lookup, and so does an
// object stored with that schema's DefaultsStamp.
func storedDefaults(r *registry.Resource, o engine.Object) ([]byte, bool) {
	v, ok := r.Version(o.StoredVersion)
	if !ok || v.Schema == nil || !v.Schema.HasDefaults() {
		return o.Body, false
	}
	return v.Schema.DefaultStoredStamped(o.Body, o.DefaultsStamp)
}

// defaultsStamp is the stamp to store with body, written in r's storage
// version: see engine.Object.DefaultsStamp.
func defaultsStamp(r *registry.Resource, body []byte) uint64 {
	v, ok := r.Version(r.StorageVersion)
	if !ok || v.Schema == nil {
		return 0
	}
	return v.Schema.StampOf(body)
}

// hubIn converts h, an object in the hub version, into version v, pruned
// to what v holds.
func hubIn(c converter, r *registry.Resource, h []byte, v *registry.Version) ([]byte, error) {
	if r.ConvertsByWebhook() {
		return c.convert(r, h, Hub(r), v.Name) // pruned as the webhook's answers are
	}
	return r.ConvertTo(h, Hub(r), v.Name)
}

// StoredToHub converts o, a stored object of r, into r's hub version, as
// every read does first: with the defaults of the schema it is stored in,
// and what its stored version could not hold put back from its remainder.
// Errors: those of r's conversion rules (no engine.Error code: a stored
// object the rules cannot read is an internal error); for a kind converted
// by its webhook, which it does not call, registry.ErrWebhookNotCalled when o is
// stored in another version than the storage version.
func StoredToHub(r *registry.Resource, o engine.Object) ([]byte, error) {
	h, _, err := storedToHub(converter{}, r, o)
	return h, err
}

// storedToHub gives a stored body its storage defaults (defaulted says
// whether it lacked some), converts it to the hub and puts back what its
// stored version could not hold.
func storedToHub(c converter, r *registry.Resource, o engine.Object) (h []byte, defaulted bool, err error) {
	body, defaulted := storedDefaults(r, o)
	if h, err = c.convert(r, body, o.StoredVersion, Hub(r)); err != nil || o.Remainder == nil {
		return h, defaulted, err
	}
	h, err = convert.Restore(h, o.Remainder)
	return h, defaulted, err
}

func pruneTo(v *registry.Version, obj []byte) ([]byte, error) {
	out, _ := v.Schema.Prune(obj)
	return out, nil
}

// toStorage converts obj, written in the target's version, into the storage
// version, ready for the Store with rv as the expected resourceVersion.
// oldHub is the object it replaces, in the hub version (nil on create):
// what the target's version cannot show of it is kept, so that an update
// through an older version erases nothing it could not see.
func toStorage(c converter, t Target, name string, obj []byte, rv int64, oldHub []byte) (engine.Object, error) {
	r := t.Resource
	stored := engine.Object{Key: t.key(name), StoredVersion: r.StorageVersion, ResourceVersion: rv}
	if r.Conversion == nil || t.Version.Name == r.StorageVersion && t.Version.Name == Hub(r) {
		// One shape, or a webhook's (or the version written is the hub
		// and the storage version): only apiVersion may change, and obj
		// was pruned to the version it is written in.
		body, err := c.convert(r, obj, t.Version.Name, r.StorageVersion)
		stored.Body, stored.DefaultsStamp = body, defaultsStamp(r, body)
		return stored, err
	}
	h, err := writtenToHub(t, obj, oldHub)
	if err != nil {
		return engine.Object{}, err
	}
	storage, _ := r.Version(r.StorageVersion)
	if stored.Body, err = r.ConvertTo(h, Hub(r), r.StorageVersion); err != nil {
		return engine.Object{}, fmt.Errorf("convert to storage version: %w", err)
	}
	stored.DefaultsStamp = defaultsStamp(r, stored.Body)
	stored.Remainder, err = lost(r, h, storage)
	return stored, err
}

// writtenToHub converts a written object to the hub, restoring what its
// version could not see of oldHub.
func writtenToHub(t Target, obj, oldHub []byte) ([]byte, error) {
	r := t.Resource
	h, err := r.Conversion.Convert(obj, t.Version.Name, Hub(r))
	if err != nil || oldHub == nil || t.Version.Name == Hub(r) {
		return h, err
	}
	kept, err := lost(r, oldHub, t.Version)
	if err != nil || kept == nil {
		return h, err
	}
	return convert.Restore(h, kept)
}

// lost is what version v cannot hold of h, an object in the hub.
func lost(r *registry.Resource, h []byte, v *registry.Version) ([]byte, error) {
	if v.Name == Hub(r) {
		return nil, nil
	}
	seen, err := r.Conversion.Project(h, Hub(r), v.Name, func(obj []byte) ([]byte, error) { return pruneTo(v, obj) })
	if err != nil {
		return nil, err
	}
	return convert.Remainder(h, seen), nil
}
