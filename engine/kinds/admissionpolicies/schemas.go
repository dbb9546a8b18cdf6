package admissionpolicies

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dynapi/dynapi/engine/admissionpolicy"
	"github.com/dynapi/dynapi/engine/openapi"
	"github.com/dynapi/dynapi/engine/registry"
)

// snapshotSchemas are the kinds one definitions snapshot serves, built-in
// and custom, for the type checker: what kube's resolver reads from the
// served OpenAPI.
type snapshotSchemas struct{ snap *registry.Snapshot }

var _ admissionpolicy.Schemas = snapshotSchemas{}

func (s snapshotSchemas) Kind(gvr schema.GroupVersionResource) (schema.GroupVersionKind, bool) {
	r, _, ok := s.snap.Lookup(gvr.Group, gvr.Version, gvr.Resource)
	if !ok {
		return schema.GroupVersionKind{}, false
	}
	return schema.GroupVersionKind{Group: r.Group, Version: gvr.Version, Kind: r.Kind}, true
}

func (s snapshotSchemas) Schema(gvk schema.GroupVersionKind) ([]byte, bool) {
	r, ok := s.snap.ResourceByKind(gvk.Group, gvk.Kind)
	if !ok {
		return nil, false
	}
	_, v, ok := s.snap.Lookup(r.Group, gvk.Version, r.Plural)
	if !ok || v.Schema == nil {
		return nil, false
	}
	b, err := openapi.ResolvedSchema(r, v)
	return b, err == nil
}
