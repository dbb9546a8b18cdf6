package resource

import (
	"fmt"
	"strings"

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
	}
	version, sub, manager := w.Target.Version.Name, w.Target.Subresource, w.Options.FieldManager
	mf, ok, err := k.Shortcut(version, sub, w.Old, w.Object, w.sentFields, manager)
	switch {
	case err != nil:
		return err
	case ok:
		return w.setManagedFields(mf)
	case w.unchangedForFields():
		return w.setManagedFields(sentManagedFields(w.Old))
	}
	if mf, err = k.Merge(version, sub, w.Old, w.Object, w.sentFields, manager); err != nil {
		return err
	}
	return w.setManagedFields(mf)
}

// unchangedForFields reports whether an update changes nothing that
// managedFields record: the same object but for server-owned metadata,
// and no managedFields sent. kube-apiserver's FieldManager would find the
// same managed set; this costs a byte comparison instead of a merge. It
// is asked only where the shortcut did not answer (whose walk finds an
// unchanged object already, when it has managedFields).
func (w *Write) unchangedForFields() bool {
	if w.Operation != UpdateOperation || w.sentFields != nil && w.Target.Subresource == "" {
		return false
	}
	return sameJSON(w.Object, w.Old, "metadata") && sameJSON([]byte(gjson.GetBytes(w.Object, "metadata").Raw),
		[]byte(gjson.GetBytes(w.Old, "metadata").Raw), "managedFields", "resourceVersion", "generation")
}

// setManagedFields sets metadata.managedFields of w.Object to mf, or
// removes them when mf is nil. The list is written where it lies, or at
// the end of metadata: a copy of the object, not sjson's search and
// rewrite, on every write.
func (w *Write) setManagedFields(mf []byte) error {
	cur := gjson.GetBytes(w.Object, managedFieldsPath)
	meta := gjson.GetBytes(w.Object, "metadata")
	switch {
	case mf == nil && !cur.Exists():
		return nil
	case mf != nil && cur.Index > 0:
		w.Object = splice(w.Object, cur.Index, len(cur.Raw), mf)
		return nil
	case mf != nil && !cur.Exists() && meta.IsObject() && meta.Index > 0:
		end := meta.Index + len(meta.Raw) - 1 // its closing brace
		member := append([]byte(`"managedFields":`), mf...)
		if strings.TrimSpace(meta.Raw[1:len(meta.Raw)-1]) != "" {
			member = append([]byte{','}, member...)
		}
		w.Object = splice(w.Object, end, 0, member)
		return nil
	}
	out, err := setRaw(w.Object, managedFieldsPath, mf)
	if err != nil {
		return err
	}
	w.Object = out
	return nil
}

// splice is obj with n bytes at i replaced by with, in a new slice.
func splice(obj []byte, i, n int, with []byte) []byte {
	out := make([]byte, 0, len(obj)-n+len(with))
	out = append(out, obj[:i]...)
	out = append(out, with...)
	return append(out, obj[i+n:]...)
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
