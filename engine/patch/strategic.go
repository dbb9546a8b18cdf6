package patch

import (
	"bytes"
	"encoding/json"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/dynapi/dynapi/engine"
)

// Strategic merge patch driven by a definition's schema: lists merge by
// the x-kubernetes-patch-merge-key and x-kubernetes-patch-strategy its
// schema declares, as Kubernetes' published OpenAPI declares them for the
// built-in kinds, rather than by a Go type's struct tags.

// DeclaresStrategies reports whether schema, a structural schema as JSON,
// declares patch strategies or merge keys: the schemas of custom
// resources, which kube-apiserver refuses strategic merge patches for,
// declare none.
func DeclaresStrategies(schema []byte) bool {
	return bytes.Contains(schema, []byte(`"x-kubernetes-patch-`))
}

// StrategicMerge applies p, a strategic merge patch, to obj, merging lists
// as schema (the object's structural schema as JSON; nil for none)
// declares. Errors: BadRequest for a patch that is malformed or does not
// apply.
func StrategicMerge(obj, p, schema []byte) ([]byte, error) {
	var root map[string]any
	if schema != nil {
		// Parsed per patch: strategic merge patches are rare (kubectl
		// apply, the event recorder), and a schema is a few kilobytes.
		_ = json.Unmarshal(schema, &root) // compiled from valid JSON
	}
	out, err := strategicpatch.StrategicMergePatchUsingLookupPatchMeta(obj, p, patchMeta{schema: root, root: true})
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "invalid strategic merge patch: %v", err)
	}
	return out, nil
}

// objectMeta is the patch metadata of every object's metadata, which the
// server owns and schemas leave untyped: finalizers merge, ownerReferences
// merge by uid, as in kube-apiserver.
var objectMeta = func() strategicpatch.LookupPatchMeta {
	m, err := strategicpatch.NewPatchMetaFromStruct(metav1.ObjectMeta{})
	if err != nil {
		panic(err) // a fixed type
	}
	return m
}()

// patchMeta is strategicpatch.LookupPatchMeta over a structural schema as
// JSON. A field the schema does not describe (metadata, which the server
// owns, or one under x-kubernetes-preserve-unknown-fields) has no patch
// metadata: its lists are replaced, its maps merged.
type patchMeta struct {
	schema map[string]any
	root   bool // the object's schema, whose metadata is ObjectMeta
}

var _ strategicpatch.LookupPatchMeta = patchMeta{}

// field finds the schema of key: a property, or additionalProperties.
func (m patchMeta) field(key string) map[string]any {
	if props, ok := m.schema["properties"].(map[string]any); ok {
		if s, ok := props[key].(map[string]any); ok {
			return s
		}
	}
	s, _ := m.schema["additionalProperties"].(map[string]any)
	return s
}

// LookupPatchMetadataForStruct returns key's schema and patch metadata.
func (m patchMeta) LookupPatchMetadataForStruct(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	if m.root && key == "metadata" {
		return objectMeta, strategicpatch.PatchMeta{}, nil
	}
	s := m.field(key)
	return patchMeta{schema: s}, metaOf(s), nil
}

// LookupPatchMetadataForSlice returns the schema of key's items and key's
// patch metadata.
func (m patchMeta) LookupPatchMetadataForSlice(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	s := m.field(key)
	items, _ := s["items"].(map[string]any)
	return patchMeta{schema: items}, metaOf(s), nil
}

// Name names the schema's type, as errors show it.
func (m patchMeta) Name() string {
	if t, ok := m.schema["type"].(string); ok {
		return t
	}
	return "Struct"
}

func metaOf(s map[string]any) strategicpatch.PatchMeta {
	var p strategicpatch.PatchMeta
	if key, ok := s["x-kubernetes-patch-merge-key"].(string); ok {
		p.SetPatchMergeKey(key)
	}
	if strategy, ok := s["x-kubernetes-patch-strategy"].(string); ok {
		p.SetPatchStrategies(strings.Split(strategy, ","))
	}
	return p
}
