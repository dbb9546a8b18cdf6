package apply

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// newTypeConverter builds the structured-merge-diff types of every version
// of a kind from their openAPIV3Schemas, as kube-apiserver does for a
// CustomResourceDefinition: apiVersion, kind and metadata (ObjectMeta,
// with its finalizers a set and ownerReferences a map keyed by uid) are
// added to each. A kind without any schema gets the deduced converter:
// every field atomic.
func newTypeConverter(s Spec) (managedfields.TypeConverter, error) {
	models := make(map[string]*spec.Schema)
	for _, v := range s.Versions {
		m, err := versionModel(s, v)
		if err != nil {
			return nil, fmt.Errorf("managed fields of %s %s: %w", s.Kind, v.Name, err)
		}
		models[s.Group+"."+v.Name+"."+s.Kind] = m
	}
	tc, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		return nil, fmt.Errorf("managed fields of %s: %w", s.Kind, err)
	}
	return tc, nil
}

// versionModel is the OpenAPI model of one version.
func versionModel(s Spec, v Version) (*spec.Schema, error) {
	m := &spec.Schema{}
	if v.Schema != nil {
		if err := json.Unmarshal(v.Schema, m); err != nil {
			return nil, err
		}
	} else {
		m.Extensions = spec.Extensions{"x-kubernetes-preserve-unknown-fields": true}
	}
	addEmbeddedProperties(m)
	m.Type = spec.StringOrArray{"object"}
	addTypeMeta(m)
	m.AddExtension("x-kubernetes-group-version-kind", []any{
		map[string]any{"group": s.Group, "version": v.Name, "kind": s.Kind},
	})
	return m, nil
}

// addTypeMeta declares apiVersion, kind and metadata (ObjectMeta) in m.
func addTypeMeta(m *spec.Schema) {
	if m.Properties == nil {
		m.Properties = map[string]spec.Schema{}
	}
	m.Properties["apiVersion"] = *spec.StringProperty()
	m.Properties["kind"] = *spec.StringProperty()
	m.Properties["metadata"] = objectMeta
}

// addEmbeddedProperties declares apiVersion, kind and metadata in every
// x-kubernetes-embedded-resource of m, as kube-apiserver's OpenAPI builder
// does for a CustomResourceDefinition: its type information has them.
func addEmbeddedProperties(m *spec.Schema) {
	if m == nil {
		return
	}
	for k, v := range m.Properties {
		addEmbeddedProperties(&v)
		m.Properties[k] = v
	}
	if m.Items != nil {
		addEmbeddedProperties(m.Items.Schema)
	}
	if m.AdditionalProperties != nil {
		addEmbeddedProperties(m.AdditionalProperties.Schema)
	}
	if embedded, _ := m.Extensions.GetBool("x-kubernetes-embedded-resource"); embedded {
		addTypeMeta(m)
	}
}

// objectMeta is the schema of metadata, as ObjectMeta's Go markers make it.
var objectMeta = func() spec.Schema {
	var m spec.Schema
	if err := json.Unmarshal([]byte(objectMetaJSON), &m); err != nil {
		panic(err)
	}
	return m
}()

const objectMetaJSON = `{"type":"object","properties":{
 "name":{"type":"string"},"generateName":{"type":"string"},"namespace":{"type":"string"},
 "selfLink":{"type":"string"},"uid":{"type":"string"},"resourceVersion":{"type":"string"},
 "generation":{"type":"integer","format":"int64"},
 "creationTimestamp":{"type":"string","format":"date-time"},
 "deletionTimestamp":{"type":"string","format":"date-time"},
 "deletionGracePeriodSeconds":{"type":"integer","format":"int64"},
 "labels":{"type":"object","additionalProperties":{"type":"string"}},
 "annotations":{"type":"object","additionalProperties":{"type":"string"}},
 "finalizers":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set"},
 "ownerReferences":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["uid"],
  "items":{"type":"object","required":["apiVersion","kind","name","uid"],"properties":{
   "apiVersion":{"type":"string"},"kind":{"type":"string"},"name":{"type":"string"},"uid":{"type":"string"},
   "controller":{"type":"boolean"},"blockOwnerDeletion":{"type":"boolean"}}}},
 "managedFields":{"type":"array","x-kubernetes-list-type":"atomic",
  "items":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}
}}`
