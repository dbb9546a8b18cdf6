package resource

import (
	"bytes"
	"context"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
)

// store is the pipeline's last step: it converts the object to the storage
// version and writes it, unless the request is a dry run. The answer is
// the written object with its new resourceVersion: it was converted from
// the target's version once, and is not converted back (but for a kind
// converted by its webhook, see answer).
func (s *Service) store(ctx context.Context, w *Write) error {
	var err error
	switch w.Operation {
	case CreateOperation:
		err = s.storeCreate(ctx, w)
	case UpdateOperation:
		err = s.storeUpdate(ctx, w)
	case DeleteOperation:
		err = s.storeDelete(ctx, w)
	}
	if err != nil {
		return err
	}
	if !w.dryRun() {
		w.strategy.AfterWrite(w)
	}
	return nil
}

// storedAsWritten reports whether the stored row is what a write of the
// same object stores now: in the storage version, read through the
// encryption key writes use. kube-apiserver compares the bytes it would
// store with the stored ones, and its transformer's stale flag, so that a
// no-op update is how a storage version migration rewrites an object.
func (w *Write) storedAsWritten() bool {
	return w.stored.StoredVersion == w.Target.Resource.StorageVersion && !w.stored.Stale
}

func (w *Write) dryRun() bool { return w.Options.DryRun || w.delete.DryRun }

func (s *Service) storeCreate(ctx context.Context, w *Write) error {
	if err := w.joinManagedFields(); err != nil {
		return err
	}
	w.result.object = w.Object
	if w.Options.DryRun {
		return nil
	}
	for attempt := 1; ; attempt++ {
		created, asWritten, err := s.storeNew(ctx, w)
		if engine.ErrorCode(err) == engine.CodeAlreadyExists && w.metadata.generatedName && attempt < maxGenerateNameAttempts {
			if err = s.renameGenerated(w); err == nil {
				continue
			}
		}
		if err != nil {
			return err
		}
		s.created(created.Key)
		w.result.object, err = s.answer(ctx, w, created, asWritten)
		return err
	}
}

// answer is a write's answer: the written object with its new
// resourceVersion. For a kind converted by its webhook, written in another
// version than the storage version, it is the stored object converted
// back, as kube answers: the webhook's way back need not give what it was
// given. asWritten says the store was given the written object itself:
// what it returned, that object at its new resourceVersion, is then the
// answer, without setting the resourceVersion into a copy once more.
func (s *Service) answer(ctx context.Context, w *Write, stored engine.Object, asWritten bool) ([]byte, error) {
	if asWritten {
		return stored.Body, nil
	}
	r := w.Target.Resource
	if !r.ConvertsByWebhook() || w.Target.Version.Name == r.StorageVersion {
		return meta.SetResourceVersion(w.Object, stored.ResourceVersion)
	}
	out, err := fromStorage(s.converter(ctx), w.Target, stored)
	if err != nil {
		return nil, err
	}
	return meta.SetResourceVersion(out, stored.ResourceVersion)
}

// maxGenerateNameAttempts is how often a create whose name the server
// generated tries a new name when the last one is taken, as
// kube-apiserver (1.32+) does.
const maxGenerateNameAttempts = 8

// storeNew stores w's object and returns it as stored, and whether the
// body stored was the object as written (see answer).
func (s *Service) storeNew(ctx context.Context, w *Write) (created engine.Object, asWritten bool, err error) {
	stored, err := toStorage(s.converter(ctx), w.Target, w.Name, w.Object, 0, nil)
	if err != nil {
		return engine.Object{}, false, err
	}
	created, err = s.createStored(ctx, stored)
	return created, bytes.Equal(stored.Body, w.Object), err
}

// renameGenerated gives w a new name from its generateName. The new name
// has the old one's prefix and length: what validated the old one holds.
func (s *Service) renameGenerated(w *Write) error {
	w.Name = s.GenerateName(w.Meta.GenerateName)
	w.Meta.Name = w.Name
	out, err := sjson.SetBytes(w.Object, "metadata.name", w.Name)
	if err != nil {
		return fmt.Errorf("set generated name: %w", err)
	}
	w.Object = out
	return nil
}

// storeUpdate writes an update over the stored object, and deletes it when
// its last finalizer went away while it was marked for deletion. An update
// that changes nothing writes nothing and keeps the resourceVersion, as
// kube-apiserver does; one that adds only the defaults the stored row
// lacked (reads show them) writes them, and so does one of a row not
// stored as a write stores it now (see storedAsWritten).
func (s *Service) storeUpdate(ctx context.Context, w *Write) error {
	// the compare stage's answer first: it is already known, and false for
	// most updates, which then skip comparing the managedFields lists
	unchanged := w.same.all() && !w.oldDefaulted && w.storedAsWritten() && sameManaged(w.managedFields.managed, w.oldManaged)
	if err := w.joinManagedFields(); err != nil {
		return err
	}
	w.result.object = w.Object
	if w.Options.DryRun {
		return nil
	}
	if unchanged {
		return s.verify(ctx, w)
	}
	stored, err := toStorage(s.converter(ctx), w.Target, w.Name, w.Object, w.stored.ResourceVersion, w.oldHub)
	if err != nil {
		return err
	}
	updated, err := s.updateStored(ctx, stored)
	if err != nil {
		return err
	}
	// marked: w.Meta is the metadata the strategy stage set into the
	// object, and no later stage marks it; read there rather than looked
	// up in the body, whose metadata holds its managedFields by now
	// (10,000 instructions of a PUT, callgrind)
	answer := func() error {
		w.result.object, err = s.answer(ctx, w, updated, bytes.Equal(stored.Body, w.Object))
		return err
	}
	if w.Meta.DeletionTimestamp == nil || hasFinalizers(w.Object) ||
		!w.strategy.Finalized(updated.Body) {
		return answer()
	}
	last, err := s.deleteStored(ctx, updated)
	if code := engine.ErrorCode(err); code == engine.CodeNotFound || code == engine.CodeConflict {
		// Another writer came between the update and its delete: a delete
		// of the finalized object (the namespace finalizer's, the
		// collector's) or a change. The update happened: it is answered
		// with what it wrote, as kube-apiserver answers an update whose
		// delete found the object gone; what follows the change is its
		// writer's.
		return answer()
	}
	if err != nil {
		return err
	}
	s.removed(last.Key)
	s.deleted(last.Key)
	w.result.object, err = fromStorage(s.converter(ctx), w.Target, last)
	return err
}

// storeDelete removes the stored object, or marks it for deletion while it
// is pending (see Strategy.PrepareForDelete).
func (s *Service) storeDelete(ctx context.Context, w *Write) error {
	w.result.pending = w.pending
	last := w.stored
	var err error
	if !w.delete.DryRun {
		if last, err = s.commitDelete(ctx, w); err != nil {
			return err
		}
	}
	w.result.object, err = fromStorage(s.converter(ctx), w.Target, last)
	return err
}

// commitDelete deletes or marks w's stored object and returns its last state.
func (s *Service) commitDelete(ctx context.Context, w *Write) (engine.Object, error) {
	last, err := s.commitDeleteOnce(ctx, w)
	if err != nil {
		return last, err
	}
	s.deleted(last.Key)
	return last, nil
}

func (s *Service) commitDeleteOnce(ctx context.Context, w *Write) (engine.Object, error) {
	marked := gjson.GetBytes(w.stored.Body, "metadata.deletionTimestamp").Exists()
	if !w.pending {
		last, err := s.deleteStored(ctx, w.stored)
		if err != nil {
			return last, err
		}
		if marked {
			s.removed(last.Key)
		}
		return last, nil
	}
	if marked && string(w.Object) == string(w.stored.Body) {
		return w.stored, s.verify(ctx, w) // deleting it again answers it as it is
	}
	o := w.stored
	o.Body, o.DefaultsStamp = w.Object, 0 // not the body stamped
	if !marked {
		body, err := sjson.SetBytes(o.Body, "metadata.deletionTimestamp", s.Now().UTC().Format("2006-01-02T15:04:05Z"))
		if err != nil {
			return engine.Object{}, fmt.Errorf("mark for deletion: %w", err)
		}
		o.Body = body
	}
	return s.updateStored(ctx, o)
}
