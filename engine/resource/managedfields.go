package resource

import "github.com/dynapi/dynapi/engine/apply"

// managedFields decides the metadata.managedFields a write stores (in
// w.managedFields.managed), as kube-apiserver's FieldManager does on every
// create and update (patch, /status, /finalize): an Update entry for the
// fields this write changed, or the Apply entry an apply computed. A
// subresource other than status keeps what is recorded.
//
// The list travels beside the object, not inside it: the stored one was
// cut off the object it was read with (w.oldManaged), a body's own was
// read once (w.metadata.sentFields) and metadata is written without it,
// and the store joins that list to the object it writes. So no stage but this one
// reads, compares or copies those bytes (often a quarter of an object).
// The shortcut's walk of the stored object and the update also tells the
// generation stage what changed (its diff), which then compares nothing.
func managedFields(_ *Service, w *Write) error {
	k := w.Target.Resource.Fields
	switch {
	case w.applied:
		return nil
	case k == nil, w.Target.Subresource != "" && w.Target.Subresource != "status":
		w.managedFields.managed = w.oldManaged
		return nil
	}
	version, sub, manager := w.Target.Version.Name, w.Target.Subresource, w.Options.FieldManager
	mf, ok, diff, err := k.Shortcut(version, sub, w.Old, w.oldManaged, w.Object, w.metadata.sentFields, manager)
	w.managedFields.diff = diff
	switch {
	case err != nil:
		return err
	case ok:
		w.managedFields.managed = mf
		return nil
	case w.unchangedForFields():
		w.managedFields.managed = w.oldManaged
		return nil
	}
	w.managedFields.managed, err = k.Merge(version, sub, w.Old, w.oldManaged, w.Object, w.metadata.sentFields, manager)
	return err
}

// unchangedForFields reports whether an update changes nothing that
// managedFields record: the same object but for server-owned metadata
// (as the compare stage found it), and no managedFields sent.
// kube-apiserver's FieldManager would find the same managed set; this
// reads the one comparison instead of a merge. It is asked only where the
// shortcut did not answer (whose walk finds an unchanged object already,
// when it has managedFields).
func (w *Write) unchangedForFields() bool {
	if w.Operation != UpdateOperation || w.metadata.sentFields != nil && w.Target.Subresource == "" {
		return false
	}
	return w.same.recorded()
}

// sameManaged reports whether two managedFields lists (nil: none) are
// the same JSON.
func sameManaged(a, b []byte) bool {
	return (a == nil) == (b == nil) && (a == nil || sameJSON(a, b))
}

// joinManagedFields writes the managed list into w.Object, as the store writes it.
func (w *Write) joinManagedFields() error {
	obj, err := apply.WithManagedFields(w.Object, w.managedFields.managed)
	w.Object = obj
	return err
}
