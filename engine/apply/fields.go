package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/dynapi/dynapi/engine"
)

// Update records the fields manager changed in obj, a create (live nil) or
// an update of live through version and subresource ("" or "status"), as
// kube-apiserver's FieldManager.UpdateNoErrors does: it returns the JSON
// of metadata.managedFields to store with obj, or nil for none. live's
// managedFields are liveFields (nil: none), apart from live as the write
// pipeline carries them; live's own are not read. sent is the
// managedFields the request carried (nil: none; obj's own are not read):
// not through a subresource, they replace the recorded ones, and an empty
// list clears them. Errors: only for an object that is not JSON, or a
// version the kind does not have.
func (k *Kind) Update(version, subresource string, live, liveFields, obj, sent []byte, manager string) ([]byte, error) {
	if mf, ok, _, err := k.Shortcut(version, subresource, live, liveFields, obj, sent, manager); err != nil || ok {
		return mf, err
	}
	return k.Merge(version, subresource, live, liveFields, obj, sent, manager)
}

// Shortcut is Update where its answer is known without kube-apiserver's
// FieldManager (see fastCreate and fastUpdate), reporting whether it
// answered, and for an update what its walk of both objects found.
// Errors: a version the kind does not have.
func (k *Kind) Shortcut(version, subresource string, live, liveFields, obj, sent []byte, manager string) ([]byte, bool, Diff, error) {
	if _, err := k.manager(version, subresource); err != nil {
		return nil, false, Diff{}, err
	}
	apiVersion := schema.GroupVersion{Group: k.spec.Group, Version: version}.String()
	if live != nil {
		mf, ok, diff := k.fastUpdate(version, apiVersion, subresource, live, liveFields, obj, sent, manager, time.Now())
		return mf, ok, diff, nil
	}
	if subresource == "" && sent == nil {
		mf, ok := k.fastCreate(version, apiVersion, obj, manager, time.Now())
		return mf, ok, Diff{}, nil
	}
	return nil, false, Diff{}, nil
}

// Merge is Update through kube-apiserver's FieldManager alone.
func (k *Kind) Merge(version, subresource string, live, liveFields, obj, sent []byte, manager string) ([]byte, error) {
	fm, err := k.manager(version, subresource)
	if err != nil {
		return nil, err
	}
	if obj, err = WithManagedFields(obj, sent); err != nil {
		return nil, err
	}
	if live != nil {
		if live, err = WithManagedFields(live, liveFields); err != nil {
			return nil, err
		}
	}
	return k.fullUpdate(fm, version, live, obj, manager)
}

// fullUpdate is Update through kube-apiserver's FieldManager.
func (k *Kind) fullUpdate(fm *managedfields.FieldManager, version string, live, obj []byte, manager string) ([]byte, error) {
	liveU, err := k.liveObject(version, live)
	if err != nil {
		return nil, err
	}
	newU, err := decode(obj)
	if err != nil {
		return nil, err
	}
	out := fm.UpdateNoErrors(liveU, newU, manager)
	return managedFieldsOf(out.(*unstructured.Unstructured))
}

// Apply merges patch (JSON, the applied configuration) into live (nil when
// the object does not exist yet) through version and subresource, as
// manager, and returns the merged object with its managedFields. force
// takes over fields other managers own.
// Errors: Conflict (one cause per field, naming its manager), BadRequest
// for a patch that does not fit the version's schema.
func (k *Kind) Apply(version, subresource string, live, patch []byte, manager string, force bool) ([]byte, error) {
	fm, err := k.manager(version, subresource)
	if err != nil {
		return nil, err
	}
	liveU, err := k.liveObject(version, live)
	if err != nil {
		return nil, err
	}
	patchU, err := decode(patch)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "invalid apply patch: %v", err)
	}
	out, err := fm.Apply(liveU, patchU, manager, force)
	if err != nil {
		return nil, translate(err)
	}
	raw, err := json.Marshal(out.(*unstructured.Unstructured).Object)
	if err != nil {
		return nil, fmt.Errorf("encode applied object: %w", err)
	}
	return raw, nil
}

// liveObject decodes live, or makes the empty object a create starts from.
func (k *Kind) liveObject(version string, live []byte) (*unstructured.Unstructured, error) {
	if live != nil {
		return decode(live)
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: k.spec.Group, Version: version, Kind: k.spec.Kind})
	return u, nil
}

// managedFieldsOf returns the JSON of u's metadata.managedFields, nil when
// it has none.
func managedFieldsOf(u *unstructured.Unstructured) ([]byte, error) {
	mf, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "managedFields")
	if !ok || mf == nil {
		return nil, nil
	}
	if l, isList := mf.([]any); isList && len(l) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(mf)
	if err != nil {
		return nil, fmt.Errorf("encode managedFields: %w", err)
	}
	return raw, nil
}

// translate turns the FieldManager's errors into dynapi's: a StatusError
// keeps its code, message and causes (an apply conflict names each field
// and its manager); anything else is a patch the schema does not take.
func translate(err error) error {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return engine.Errorf(engine.CodeBadRequest, "%v", err)
	}
	st := se.Status()
	e := &engine.Error{Code: engine.Code(st.Reason), Message: st.Message}
	if e.Code == "" {
		e.Code = engine.CodeInternal
	}
	if d := st.Details; d != nil {
		e.Group, e.Kind, e.Name = d.Group, d.Kind, d.Name
		for _, c := range d.Causes {
			e.Causes = append(e.Causes, engine.FieldError{Type: string(c.Type), Path: c.Field, Message: c.Message})
		}
	}
	return e
}
