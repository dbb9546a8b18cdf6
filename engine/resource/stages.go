package resource

import (
	"fmt"
	"strconv"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/apply"
	"github.com/dynapi/dynapi/engine/jsonguard"
	"github.com/dynapi/dynapi/engine/meta"
	"github.com/dynapi/dynapi/engine/schema"
)

// decodeBody keeps the last of duplicate keys in the body and reports the
// others as fieldValidation asks (see reportFields), after the duplicate
// keys of a YAML body and before metadata's unknown fields, as
// kube-apiserver's decoder reports them. A patched object was encoded by
// the server: it has no duplicates.
func decodeBody(_ *Service, w *Write) error {
	w.reportYAML(w.Options.YAMLDuplicates)
	if !w.patched {
		var found []string
		w.Object, found = schema.DropDuplicates(w.Object)
		w.reportFields("duplicate", found)
	}
	w.reportFields("unknown", unknownMeta(w.Object)) // before metadata drops them
	return nil
}

func typeMeta(_ *Service, w *Write) error { return checkTypeMeta(w.Target, w.Object) }

// guardCreate runs the Service's create guards (see GuardCreates) on a
// create of the resource itself: a subresource's create (a token request)
// makes no object of the kind.
func guardCreate(s *Service, w *Write) error {
	if w.Target.Subresource != "" {
		return nil
	}
	name := lookup(w.Object, "metadata.name").Str
	for _, g := range s.guards {
		if err := g(w.Target.GroupResource(), name); err != nil {
			return err
		}
	}
	return nil
}

// createMeta reads the new object's metadata and fills what the server owns.
func createMeta(s *Service, w *Write) error {
	w.metadata.sentFields = apply.ManagedFieldsOf(w.Object)
	m, err := parseMeta(w.Target, w.Object)
	if err != nil {
		return err
	}
	if m.ResourceVersion != "" {
		return engine.Errorf(engine.CodeBadRequest, "resourceVersion should not be set on objects to be created")
	}
	w.metadata.generatedName = s.prepareCreateMeta(m)
	w.Meta, w.Name = m, m.Name
	return nil
}

// updateMeta checks that the body may replace the stored object (its name,
// the resourceVersion it was read at, its uid) and carries over the
// metadata only the server may change.
func updateMeta(_ *Service, w *Write) error {
	w.metadata.sentFields = apply.ManagedFieldsOf(w.Object)
	m, err := parseMeta(w.Target, w.Object)
	if err != nil {
		return err
	}
	if m.Name != w.Name {
		return engine.Errorf(engine.CodeBadRequest, "the name of the object (%s) does not match the name on the URL (%s)", m.Name, w.Name)
	}
	if m.ResourceVersion == "" && w.strategy.AllowUnconditionalUpdate() {
		m.ResourceVersion = strconv.FormatInt(w.stored.ResourceVersion, 10)
	}
	rv, err := parseResourceVersion(w.Target, m)
	if err != nil {
		return err
	}
	if rv != w.stored.ResourceVersion {
		return engine.NewModified(w.Target.GroupResource(), m.Name)
	}
	if m.UID != "" && m.UID != w.OldMeta.UID {
		return engine.NewConflict(w.Target.GroupResource(), m.Name,
			fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", m.UID, w.OldMeta.UID))
	}
	keepServerMeta(m, w.OldMeta)
	w.Meta = m
	return nil
}

// storable refuses what PostgreSQL's jsonb cannot store (U+0000, numbers
// out of range) with a 422 naming each field, before any other stage
// reads the values.
func storable(_ *Service, w *Write) error {
	if causes := jsonguard.Unstorable(w.Object, MaxCauses); len(causes) > 0 {
		return w.invalid(causes)
	}
	return nil
}

func preconditions(_ *Service, w *Write) error {
	return checkPreconditions(w.Target, w.stored, w.delete)
}

// prepare runs the strategy's PrepareForCreate or PrepareForUpdate, then
// sets the metadata into the object.
func prepare(_ *Service, w *Write) error {
	var err error
	if w.Operation == CreateOperation {
		err = w.strategy.PrepareForCreate(w)
	} else {
		err = w.strategy.PrepareForUpdate(w)
	}
	if err != nil {
		return err
	}
	w.Object, err = meta.Set(w.Object, w.Meta)
	return err
}

func prepareDelete(_ *Service, w *Write) (err error) {
	w.pending, err = w.strategy.PrepareForDelete(w)
	return err
}

// admitStage validates metadata, then prunes, defaults and validates
// against the schema: problems of both in one 422. The body's unknown
// fields end its decoding: under Strict, every problem found (see
// decodeBody) is one 400.
func admitStage(_ *Service, w *Write) error {
	t := w.Target
	var metaErrs []engine.FieldError
	if w.Operation == CreateOperation {
		metaErrs = meta.ValidateCreate(w.Meta, t.Resource.Namespaced, w.strategy.NameRule())
	} else {
		metaErrs = meta.ValidateUpdate(w.Meta, w.OldMeta, t.Resource.Namespaced, w.strategy.NameRule())
	}
	obj, removed := t.Version.Schema.Prune(w.Object)
	w.reportFields("unknown", removed)
	if err := w.strictError(); err != nil {
		return err
	}
	obj, err := admit(t, w.Name, obj, w.Old, metaErrs)
	if err != nil {
		return err
	}
	w.Object = obj
	return nil
}

func validateByStrategy(_ *Service, w *Write) error {
	causes, warnings := w.strategy.Validate(w)
	if len(causes) > 0 {
		return w.invalid(causes)
	}
	w.Warnings = append(w.Warnings, warnings...)
	return nil
}

// authorizeByStrategy runs the strategy's WriteAuthorizer, if it has one.
func authorizeByStrategy(_ *Service, w *Write) error {
	if a, ok := w.strategy.(WriteAuthorizer); ok {
		return a.AuthorizeWrite(w)
	}
	return nil
}

// generation increments metadata.generation when anything but metadata
// (and status, when it has its own subresource) changed: as the
// managedFields stage's walk found it, or else as the compare stage did.
func generation(_ *Service, w *Write) error {
	ignore := []string{"metadata"}
	statusOwn := w.Target.Version.Subresources.Status
	if statusOwn {
		ignore = append(ignore, "status")
	}
	if w.managedFields.diff.Complete && !w.managedFields.diff.Outside(ignore...) || !w.managedFields.diff.Complete && w.same.spec(statusOwn) {
		return nil
	}
	out, err := meta.SetGeneration(w.Object, w.OldMeta.Generation+1) // OldMeta: w.Old's, parsed once
	if err != nil {
		return fmt.Errorf("bump generation: %w", err)
	}
	w.Object = out
	return nil
}
