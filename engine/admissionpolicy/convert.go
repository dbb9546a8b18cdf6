package admissionpolicy

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// errNotListed: kube's matcher only ever gets one namespace.
var errNotListed = errors.New("namespaces are not listed by admission policies")

// creater makes the unstructured objects every dynapi kind is, with
// their kind set: the target that convertor reads.
type creater struct{}

func (creater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// typer types an unstructured object by its apiVersion and kind.
type typer struct{}

func (typer) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		return nil, false, runtime.NewMissingKindErr(fmt.Sprintf("%T", obj))
	}
	return []schema.GroupVersionKind{gvk}, false, nil
}

func (typer) Recognizes(schema.GroupVersionKind) bool { return true }

// nopDefaulter: the schema stage after mutation applies defaults.
type nopDefaulter struct{}

func (nopDefaulter) Default(runtime.Object) {}

// convertor converts between versions of one kind through Env, for kube's
// ConvertToGVK (a policy that matches another version than the request's).
type convertor struct{ env Env }

func (c convertor) Convert(in, out, _ any) error {
	dst, ok := out.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("convert to %T: only unstructured objects", out)
	}
	src, ok := in.(runtime.Object)
	if !ok {
		return fmt.Errorf("convert %T: not an object", in)
	}
	gvk := dst.GroupVersionKind()
	if gvk.Empty() {
		return errors.New("convert: no target kind")
	}
	got, err := c.env.Convert(src, gvk)
	if err != nil {
		return err
	}
	u, ok := got.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("convert: got %T", got)
	}
	dst.Object = u.Object
	return nil
}

func (c convertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	gvk, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{in.GetObjectKind().GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("convert %v: no version in %v", in.GetObjectKind().GroupVersionKind(), gv)
	}
	return c.env.Convert(in, gvk)
}

func (c convertor) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}
