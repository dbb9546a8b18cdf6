package resource

import (
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

const managedFieldsPath = "metadata.managedFields"

// sentManagedFields is metadata.managedFields of a request body, nil when
// it has none.
func sentManagedFields(obj []byte) []byte {
	v := gjson.GetBytes(obj, managedFieldsPath)
	if !v.Exists() {
		return nil
	}
	return []byte(v.Raw)
}

// managedFields records in metadata.managedFields which manager set which
// fields, as kube-apiserver's FieldManager does on every create and update
// (patch, /status, /finalize): an Update entry for the fields this write
// changed, or the Apply entry an apply computed. A subresource other than
// status keeps what is recorded.
func managedFields(_ *Service, w *Write) error {
	k := w.Target.Resource.Fields
	switch {
	case w.applied:
		return w.setManagedFields(w.managed)
	case k == nil, w.Target.Subresource != "" && w.Target.Subresource != "status":
		return w.setManagedFields(sentManagedFields(w.Old))
	case w.unchangedForFields():
		return w.setManagedFields(sentManagedFields(w.Old))
	}
	mf, err := k.Update(w.Target.Version.Name, w.Target.Subresource, w.Old, w.Object, w.sentFields, w.Options.FieldManager)
	if err != nil {
		return err
	}
	return w.setManagedFields(mf)
}

// unchangedForFields reports whether an update changes nothing that
// managedFields record: the same object but for server-owned metadata,
// and no managedFields sent. kube-apiserver's FieldManager would find the
// same managed set; this costs a byte comparison instead of a merge.
func (w *Write) unchangedForFields() bool {
	if w.Operation != UpdateOperation || w.sentFields != nil && w.Target.Subresource == "" {
		return false
	}
	return sameJSON(w.Object, w.Old, "metadata") && sameJSON([]byte(gjson.GetBytes(w.Object, "metadata").Raw),
		[]byte(gjson.GetBytes(w.Old, "metadata").Raw), "managedFields", "resourceVersion", "generation")
}

func (w *Write) setManagedFields(mf []byte) error {
	out, err := setRaw(w.Object, managedFieldsPath, mf)
	if err != nil {
		return err
	}
	w.Object = out
	return nil
}

// setRaw sets field of obj to raw, or removes it when raw is nil.
func setRaw(obj []byte, field string, raw []byte) ([]byte, error) {
	var out []byte
	var err error
	if raw == nil {
		out, err = sjson.DeleteBytes(obj, field)
	} else {
		out, err = sjson.SetRawBytes(obj, field, raw)
	}
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", field, err)
	}
	return out, nil
}
