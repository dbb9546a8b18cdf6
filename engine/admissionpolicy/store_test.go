package admissionpolicy

import (
	"context"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/engine/apply"
)

// memoryStore is a Store over objects in memory: namespaces, and params
// that are ConfigMaps (namespaced) or example.com/v1 Limits (cluster-scoped).
type memoryStore struct {
	namespaces map[string]map[string]string // name → labels
	params     []*unstructured.Unstructured
}

func (m memoryStore) Namespace(_ context.Context, name string) (*corev1.Namespace, error) {
	l, ok := m.namespaces[name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}, nil
}

func (m memoryStore) ParamScope(kind *v1.ParamKind) (bool, error) {
	switch kind.Kind {
	case "ConfigMap":
		return true, nil
	case "Limit":
		return false, nil
	}
	return false, apierrors.NewNotFound(schema.GroupResource{}, kind.Kind)
}

func (m memoryStore) Param(_ context.Context, kind *v1.ParamKind, namespace, name string) (runtime.Object, error) {
	for _, p := range m.params {
		if p.GetKind() == kind.Kind && p.GetNamespace() == namespace && p.GetName() == name {
			return p, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{}, name)
}

func (m memoryStore) Params(_ context.Context, kind *v1.ParamKind, namespace string, sel labels.Selector) ([]runtime.Object, error) {
	var out []runtime.Object
	for _, p := range m.params {
		if p.GetKind() == kind.Kind && (namespace == "" || p.GetNamespace() == namespace) && sel.Matches(labels.Set(p.GetLabels())) {
			out = append(out, p)
		}
	}
	return out, nil
}

func (m memoryStore) Mapper() runtime.EquivalentResourceMapper {
	return runtime.NewEquivalentResourceRegistry()
}

func (m memoryStore) Authorizer() authorizer.UnconditionalAuthorizer { return NewAuthorizer(nil) }

func (m memoryStore) Convert(obj runtime.Object, _ schema.GroupVersionKind) (runtime.Object, error) {
	return obj, nil
}

// objectsOf decodes policy and binding YAML documents.
func objectsOf(t testing.TB, docs ...string) Objects {
	t.Helper()
	var o Objects
	for _, d := range docs {
		var head metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(d), &head); err != nil {
			t.Fatal(err)
		}
		var err error
		switch head.Kind {
		case "ValidatingAdmissionPolicy":
			o.Validating = append(o.Validating, decodeYAML[v1.ValidatingAdmissionPolicy](d, &err))
		case "ValidatingAdmissionPolicyBinding":
			o.ValidatingBinding = append(o.ValidatingBinding, decodeYAML[v1.ValidatingAdmissionPolicyBinding](d, &err))
		case "MutatingAdmissionPolicy":
			o.Mutating = append(o.Mutating, decodeYAML[v1.MutatingAdmissionPolicy](d, &err))
		case "MutatingAdmissionPolicyBinding":
			o.MutatingBinding = append(o.MutatingBinding, decodeYAML[v1.MutatingAdmissionPolicyBinding](d, &err))
		default:
			t.Fatalf("kind %q", head.Kind)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return o
}

func decodeYAML[T any](doc string, err *error) *T {
	v := new(T)
	*err = yaml.UnmarshalStrict([]byte(doc), v)
	return v
}

// objectOf decodes a YAML object.
func objectOf(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	if doc == "" {
		return nil
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// configMapRequest is a request on a ConfigMap in namespace "team".
func configMapRequest(op admission.Operation, obj, old *unstructured.Unstructured) admission.Attributes {
	var o, oo runtime.Object
	name := ""
	if obj != nil {
		o, name = obj, obj.GetName()
	}
	if old != nil {
		oo, name = old, old.GetName()
	}
	return admission.NewAttributesRecord(o, oo, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, "team", name,
		schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "", op, nil, false,
		&user.DefaultInfo{Name: "ann", Groups: []string{"dev"}})
}

// configMapFields are the field types of ConfigMap v1, enough for
// ApplyConfiguration's merge.
var configMapFields = apply.NewKind(apply.Spec{Kind: "ConfigMap", Versions: []apply.Version{{Name: "v1", Schema: []byte(`{
	"type": "object",
	"properties": {
		"apiVersion": {"type": "string"}, "kind": {"type": "string"},
		"metadata": {"type": "object", "properties": {
			"name": {"type": "string"}, "namespace": {"type": "string"},
			"labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
		"data": {"type": "object", "additionalProperties": {"type": "string"}}
	}}`)}}})

func (m memoryStore) Fields(gvk schema.GroupVersionKind) (*apply.Kind, error) {
	if gvk.Kind != "ConfigMap" {
		return nil, apierrors.NewNotFound(schema.GroupResource{}, gvk.Kind)
	}
	return configMapFields, nil
}
