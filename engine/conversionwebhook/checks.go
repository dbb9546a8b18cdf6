package conversionwebhook

import (
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	fieldpath "k8s.io/apimachinery/pkg/util/validation/field"
)

// merge puts the converted objects in place of the pending ones, each
// checked and with its metadata restored, as kube does.
func (k *call) merge(converted [][]byte) ([][]byte, string, error) {
	out := make([][]byte, len(k.objs))
	copy(out, k.objs)
	for i, at := range k.pending {
		obj, failure, err := k.accept(i, k.objs[at], converted[i])
		if err != nil {
			return nil, failure, err
		}
		out[at] = obj
	}
	return out, "", nil
}

// accept checks one converted object against its original and restores its
// metadata; errors in kube's words, which tell a list's item by its index.
func (k *call) accept(i int, original, converted []byte) ([]byte, string, error) {
	if !gjson.ParseBytes(converted).IsObject() { // the response was valid JSON
		return nil, failInvalid, k.invalidObject(i, fmt.Errorf("cannot unmarshal %s into an object", gjsonType(gjson.ParseBytes(converted))))
	}
	if err := k.checkTypeMeta(original, converted); err != nil {
		return nil, failInvalid, k.invalidObjectAt(i, err)
	}
	if err := sameIdentity(original, converted); err != nil {
		return nil, failInvalid, k.invalidObject(i, err)
	}
	obj, err := restoreMetadata(original, converted)
	if err != nil {
		return nil, failInvalid, k.invalidMetadata(i, err)
	}
	return obj, "", nil
}

// checkTypeMeta checks the converted object's apiVersion and kind.
func (k *call) checkTypeMeta(original, converted []byte) error {
	if got := gjson.GetBytes(converted, "apiVersion").String(); got != k.desired {
		return fmt.Errorf("invalid groupVersion (expected %s, received %s)", k.desired, got)
	}
	want, got := gjson.GetBytes(original, "kind").String(), gjson.GetBytes(converted, "kind").String()
	if got != want {
		return fmt.Errorf("invalid kind (expected %s, received %s)", want, got)
	}
	return nil
}

// invalidObjectAt words a wrong apiVersion or kind, as kube does for a
// list's item and for one object.
func (k *call) invalidObjectAt(i int, err error) error {
	if k.list {
		return fmt.Errorf("conversion webhook for %s returned invalid converted object at index %d: %v", k.gvk, i, err)
	}
	return fmt.Errorf("conversion webhook for %s returned invalid object at index 0: %v", k.gvk, err)
}

// invalidObject words any other problem of a converted object.
func (k *call) invalidObject(i int, err error) error {
	if k.list {
		return fmt.Errorf("conversion webhook for %s returned invalid converted object at index %d: %v", k.gvk, i, err)
	}
	return fmt.Errorf("conversion webhook for %s returned invalid object: %v", k.gvk, err)
}

// invalidMetadata words a problem of a converted object's metadata.
func (k *call) invalidMetadata(i int, err error) error {
	if k.list {
		return fmt.Errorf("conversion webhook for %s returned invalid metadata in object at index %d: %v", k.gvk, i, err)
	}
	return fmt.Errorf("conversion webhook for %s returned invalid metadata: %v", k.gvk, err)
}

// sameIdentity is kube's validateConvertedObject: a webhook may not change
// what names the object.
func sameIdentity(original, converted []byte) error {
	for _, f := range []struct{ path, name string }{
		{"kind", "kind"}, {"metadata.name", "name"}, {"metadata.namespace", "namespace"}, {"metadata.uid", "UID"},
	} {
		if want, got := gjson.GetBytes(original, f.path).String(), gjson.GetBytes(converted, f.path).String(); want != got {
			return fmt.Errorf("must have the same %s: %v != %v", f.name, want, got)
		}
	}
	return nil
}

// restoreMetadata is kube's restoreObjectMeta: the converted object gets
// the original's metadata back, with the labels and annotations the
// webhook answered (absent or null: none), each value a string.
func restoreMetadata(original, converted []byte) ([]byte, error) {
	answered := gjson.GetBytes(converted, "metadata")
	if !answered.Exists() {
		return nil, fmt.Errorf("missing metadata in converted object")
	}
	if !answered.IsObject() {
		return nil, fmt.Errorf("invalid metadata of type %s in converted object", gjsonType(answered))
	}
	restored := []byte("{}")
	if m := gjson.GetBytes(original, "metadata"); m.IsObject() {
		restored = []byte(m.Raw)
	}
	var err error
	for _, field := range []string{"labels", "annotations"} {
		if restored, err = restoreMap(restored, answered.Get(field), field); err != nil {
			return nil, err
		}
	}
	return sjson.SetRawBytes(converted, "metadata", restored)
}

// restoreMap sets field of metadata to the webhook's answer.
func restoreMap(metadata []byte, answered gjson.Result, field string) ([]byte, error) {
	if !answered.Exists() || answered.Type == gjson.Null {
		return sjson.DeleteBytes(metadata, field)
	}
	if !answered.IsObject() {
		return nil, fmt.Errorf("invalid metadata.%s of type %s in converted object", field, gjsonType(answered))
	}
	values := map[string]string{}
	var err error
	answered.ForEach(func(key, value gjson.Result) bool {
		if value.Type != gjson.String {
			err = fmt.Errorf("metadata.%s[%s] must be a string, but is %s in converted object", field, key.String(), gjsonType(value))
		}
		values[key.String()] = value.String()
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if changed(gjson.GetBytes(metadata, field), values) {
		if err := validateMap(field, values); err != nil {
			return nil, err
		}
	}
	return sjson.SetRawBytes(metadata, field, []byte(answered.Raw))
}

// changed reports whether the webhook's labels or annotations differ from
// the original's, which kube checks only then.
func changed(original gjson.Result, answered map[string]string) bool {
	n := 0
	same := true
	original.ForEach(func(key, value gjson.Result) bool {
		n++
		v, ok := answered[key.String()]
		same = ok && v == value.String()
		return same
	})
	return !same || n != len(answered)
}

// validateMap checks labels or annotations a webhook changed, as kube
// does, with its paths (metadata.annotation: kube's own spelling).
func validateMap(field string, values map[string]string) error {
	var errs fieldpath.ErrorList
	if field == "labels" {
		errs = metav1validation.ValidateLabels(values, fieldpath.NewPath("metadata", "labels"))
	} else {
		errs = apivalidation.ValidateAnnotations(values, fieldpath.NewPath("metadata", "annotation"))
	}
	return errs.ToAggregate()
}

// gjsonType names a JSON value's type as Go's %T names what
// encoding/json decodes it to, as kube's errors show it.
func gjsonType(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "map[string]interface {}"
	case v.IsArray():
		return "[]interface {}"
	}
	switch v.Type {
	case gjson.String:
		return "string"
	case gjson.Number:
		return "int64" // unstructured JSON decodes whole numbers to int64
	case gjson.True, gjson.False:
		return "bool"
	}
	return "<nil>"
}
