package crd

import (
	"fmt"
	"slices"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
)

// ProtectionAnnotation, set to "true" on a definition, refuses its delete
// while objects of its kind are stored (kubernetes/kubernetes#114003):
// deleting a definition deletes its objects.
const ProtectionAnnotation = "dynapi.dev/deletion-protection"

// PrepareForDelete marks a definition for deletion as kube-apiserver does:
// the cleanup finalizer and the Terminating condition; the Cleaner deletes
// its objects, then lets it go. A protected definition (its annotation, or
// the server's setting) that still has objects is refused with a 409. One
// for a kind a definition file serves is refused (see publish.go); one
// published for a file that is gone is deleted at once, its objects kept.
func (s Strategy) PrepareForDelete(w *resource.Write) (bool, error) {
	if gjson.GetBytes(w.Object, "metadata.deletionTimestamp").Exists() {
		return resource.CustomResource{}.PrepareForDelete(w)
	}
	if s.Snapshots != nil {
		if err := refuseFileDelete(s.Snapshots.Load(), w.Name, w.Object); err != nil {
			return false, err
		}
	}
	if annotatedFile(w.Object) != "" {
		// Published for a definition file that is gone: its objects stay.
		return resource.CustomResource{}.PrepareForDelete(w)
	}
	if err := s.protect(w); err != nil {
		return false, err
	}
	body := w.Object
	if f := finalizers(body); !slices.Contains(f, cleanupFinalizer) {
		var err error
		if body, err = sjson.SetBytes(body, "metadata.finalizers", append(f, cleanupFinalizer)); err != nil {
			return false, fmt.Errorf("mark for deletion: %w", err)
		}
	}
	body, _, err := withTerminating(body, "InstanceDeletionPending",
		"CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon", time.Now())
	if err != nil {
		return false, fmt.Errorf("mark for deletion: %w", err)
	}
	w.Object = body
	return resource.CustomResource{}.PrepareForDelete(w)
}

// protect refuses the delete of a protected definition whose kind still
// has stored objects.
func (s Strategy) protect(w *resource.Write) error {
	annotated := gjson.GetBytes(w.Object, "metadata.annotations."+gjson.Escape(ProtectionAnnotation)).Str == "true"
	if !annotated && !s.DeletionProtection {
		return nil
	}
	gr := engine.GroupResource{Group: gjson.GetBytes(w.Object, "spec.group").Str, Resource: gjson.GetBytes(w.Object, "spec.names.plural").Str}
	n := 0
	if _, err := s.Service.ListStored(w.Context(), engine.ListOptions{Resource: gr, Limit: 1}, func(engine.Object) error {
		n++
		return nil
	}); err != nil {
		return fmt.Errorf("count %s: %w", gr, err)
	}
	if n == 0 {
		return nil
	}
	why := fmt.Sprintf("it carries the annotation %s: %q", ProtectionAnnotation, "true")
	if !annotated {
		why = "the server protects every definition (--crd-deletion-protection)"
	}
	return engine.NewConflict(GroupResource, w.Name, fmt.Sprintf(
		"%s still has objects, and deleting the definition would delete them: %s; delete the objects first", gr, why))
}
