package apply

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// decode turns a JSON object into an unstructured one. Integers stay
// int64, as client-go's unstructured decoding keeps them.
func decode(obj []byte) (*unstructured.Unstructured, error) {
	var m map[string]any
	if err := utiljson.Unmarshal(obj, &m); err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// converter converts unstructured objects between versions of a kind with
// the kind's conversion, for managedFields recorded through another
// version.
type converter struct {
	convert func(obj []byte, from, to string) ([]byte, error)
}

var _ runtime.ObjectConvertor = (*converter)(nil)

func (c *converter) Convert(in, out, _ any) error {
	return fmt.Errorf("managed fields: Convert is not supported")
}

func (c *converter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("managed fields: cannot convert %T", in)
	}
	gvk := u.GroupVersionKind()
	to, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{gvk})
	if !ok {
		return nil, fmt.Errorf("managed fields: %v cannot convert to %v", gvk, target)
	}
	if to.Version == gvk.Version {
		return u, nil
	}
	raw, err := u.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if raw, err = c.convert(raw, gvk.Version, to.Version); err != nil {
		return nil, err
	}
	return decode(raw)
}

func (c *converter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// nopDefaulter applies no defaults: the write pipeline defaults the
// applied object after the merge, from the version's schema.
type nopDefaulter struct{}

func (nopDefaulter) Default(runtime.Object) {}

// creater makes empty unstructured objects.
type creater struct{}

func (creater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}
