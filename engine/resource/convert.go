package resource

import (
	"fmt"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// toVersion converts obj, an object of r in any of its versions, into version.
// Until a kind declares conversion rules its versions share one shape, and
// only apiVersion changes (the CustomResourceDefinition strategy None).
func toVersion(r *registry.Resource, obj []byte, version string) ([]byte, error) {
	apiVersion := engine.GroupVersionKind{Group: r.Group, Version: version}.APIVersion()
	out, err := sjson.SetBytes(obj, "apiVersion", apiVersion)
	if err != nil {
		return nil, fmt.Errorf("convert to %s: %w", apiVersion, err)
	}
	return out, nil
}

// fromStorage converts a stored object into the target's version.
func fromStorage(t Target, o engine.Object) ([]byte, error) {
	return toVersion(t.Resource, o.Body, t.Version.Name)
}

// toStorage converts obj from the target's version into the storage version,
// ready for the Store with rv as the expected resourceVersion.
func toStorage(t Target, name string, obj []byte, rv int64) (engine.Object, error) {
	body, err := toVersion(t.Resource, obj, t.Resource.StorageVersion)
	if err != nil {
		return engine.Object{}, err
	}
	return engine.Object{Key: t.key(name), StoredVersion: t.Resource.StorageVersion, ResourceVersion: rv, Body: body}, nil
}
