package resource

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
)

// DeleteOptions are the preconditions and options of a delete.
type DeleteOptions struct {
	DryRun bool
	// PreconditionUID and PreconditionResourceVersion, when set, must match
	// the object, as metav1.Preconditions.
	PreconditionUID             string
	PreconditionResourceVersion string
	// PropagationPolicy is what happens to the object's dependents (the
	// objects naming it in ownerReferences), as metav1.DeletionPropagation:
	// "Background" (or ""), the object goes now and the garbage collector
	// deletes them after; "Foreground", the object stays, marked, with the
	// foregroundDeletion finalizer, until the collector has deleted those
	// that block it; "Orphan", it stays with the orphan finalizer until the
	// collector has removed their references to it.
	PropagationPolicy string
}

// Propagation policies and the finalizers that carry them.
const (
	PropagationBackground = "Background"
	PropagationForeground = "Foreground"
	PropagationOrphan     = "Orphan"
	FinalizerForeground   = "foregroundDeletion"
	FinalizerOrphan       = "orphan"
)

// DeleteResult is the outcome of a delete: the object as it was deleted, or,
// when it still has finalizers, as it is now, marked for deletion (Pending).
type DeleteResult struct {
	Object  []byte
	UID     string
	Pending bool
}

// maxConflictRetries bounds how often a delete or patch without a
// resourceVersion precondition re-reads the object after a concurrent write.
const maxConflictRetries = 5

// Delete deletes one object, or marks it for deletion while its strategy
// keeps it (finalizers; a namespace while it is emptied).
// Errors: NotFound, Conflict (a precondition failed), Forbidden.
//
// The first try starts from the cached object unless a resourceVersion
// precondition names another (see guarded); a try after a conflict
// starts from the database's.
func (s *Service) Delete(ctx context.Context, t Target, name string, opts DeleteOptions) (DeleteResult, error) {
	accept := func(o engine.Object) bool {
		return opts.PreconditionResourceVersion == "" || opts.PreconditionResourceVersion == strconv.FormatInt(o.ResourceVersion, 10)
	}
	for attempt := 0; ; attempt++ {
		res, err := guarded(s, ctx, t.key(name), attempt == 0 && !opts.DryRun, accept, func(st stored) (DeleteResult, error) {
			if st.err != nil {
				return DeleteResult{}, st.err
			}
			return s.deleteOne(ctx, t, st.obj, st.cached, opts)
		})
		if engine.ErrorCode(err) == engine.CodeConflict && opts.PreconditionResourceVersion == "" && attempt < maxConflictRetries {
			continue
		}
		return res, err
	}
}

// deleteOne runs the pipeline's delete over a stored object (cached: the
// cache's entry, see Write.cached).
func (s *Service) deleteOne(ctx context.Context, t Target, old engine.Object, cached bool, opts DeleteOptions) (DeleteResult, error) {
	w := &Write{Target: t, Operation: DeleteOperation, Name: old.Key.Name, Object: old.Body, stored: old, cached: cached, delete: opts}
	res, err := s.run(ctx, w)
	if err != nil {
		return DeleteResult{}, err
	}
	return DeleteResult{Object: res.object, UID: gjson.GetBytes(old.Body, "metadata.uid").String(), Pending: res.pending}, nil
}

// RemoveUnserved deletes a stored object of a resource that no definition
// serves any more (its kind removed or switched off), which Delete cannot
// address: there is no version to read it in, nor a schema. It runs what
// of the delete needs neither: it is marked for deletion while it has
// finalizers (pending), then deleted as Delete deletes (the OnDelete and
// OnRemove hooks see it). Only the namespace finalizer uses it: kube's
// namespace controller deletes only what discovery serves and leaves such
// objects in etcd, but here they would come back in a new namespace of
// the same name when their kind is served again, so a namespace being
// deleted takes them with it. Errors: NotFound, Conflict
// when the object changed since it was read.
func (s *Service) RemoveUnserved(ctx context.Context, o engine.Object) (pending bool, err error) {
	w := &Write{Operation: DeleteOperation, Object: o.Body, stored: o}
	if w.pending, err = (CustomResource{}).PrepareForDelete(w); err != nil {
		return false, err
	}
	_, err = s.commitDelete(ctx, w)
	return w.pending, err
}

// checkPreconditions enforces DeleteOptions.preconditions. Errors: Conflict.
func checkPreconditions(t Target, old engine.Object, opts DeleteOptions) error {
	uid := gjson.GetBytes(old.Body, "metadata.uid").String()
	if opts.PreconditionUID != "" && opts.PreconditionUID != uid {
		return engine.NewConflict(t.GroupResource(), old.Key.Name,
			fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", opts.PreconditionUID, uid))
	}
	rv := fmt.Sprint(old.ResourceVersion)
	if opts.PreconditionResourceVersion != "" && opts.PreconditionResourceVersion != rv {
		return engine.NewConflict(t.GroupResource(), old.Key.Name,
			fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", opts.PreconditionResourceVersion, rv))
	}
	return nil
}

// deletePage is how many objects DeleteCollection lists, then deletes, at
// a time when the client sets no limit: each object listed is held, with
// its body, until it is deleted, so a collection of a million objects
// would otherwise be held whole (and its deleted objects, for the answer,
// besides).
const deletePage = 500

// DeleteCollection deletes every object the list options select (selectable
// fields as a list selects them), each as Delete would, and hands each
// deleted object, in the target's version, to each as it goes. Without a
// limit it lists and deletes deletePage objects at a time, the pages after
// the first read at the first one's resourceVersion (continue tokens), as
// one list would read them; with one, the page the limit and continue
// token select. Errors: those of List, Delete and each.
func (s *Service) DeleteCollection(ctx context.Context, t Target, lo engine.ListOptions, opts DeleteOptions, each func([]byte) error) error {
	f, err := newFilter(t, lo)
	if err != nil {
		return err
	}
	lo = f.storeOptions(lo)
	lo.Resource, lo.Namespace = t.GroupResource(), t.Namespace
	paged := lo.Limit == 0
	if paged {
		lo.Limit = deletePage
	}
	for {
		var page []engine.Object
		meta, err := s.storage.List(ctx, lo, func(o engine.Object) error {
			page = append(page, o)
			return nil
		})
		if err != nil {
			return err
		}
		if page, err = s.selected(ctx, t, f, page); err != nil {
			return err
		}
		if err := s.deleteListed(ctx, t, page, opts, each); err != nil {
			return err
		}
		if !paged || meta.Continue == "" {
			return nil
		}
		lo.Continue = meta.Continue
	}
}

// deleteListed deletes the objects a DeleteCollection listed, handing each
// deleted one to each.
func (s *Service) deleteListed(ctx context.Context, t Target, listed []engine.Object, opts DeleteOptions, each func([]byte) error) error {
	for _, o := range listed {
		res, err := s.deleteOne(ctx, t, o, false, opts)
		if engine.ErrorCode(err) == engine.CodeConflict && opts.PreconditionUID == "" && opts.PreconditionResourceVersion == "" {
			// Changed since the list: kube-apiserver deletes each listed
			// object by name, as it is then.
			res, err = s.Delete(ctx, t, o.Key.Name, opts)
		}
		if code := engine.ErrorCode(err); code == engine.CodeNotFound || code == engine.CodeConflict {
			continue // deleted since the list, or a precondition no longer holds
		}
		if err != nil {
			return err
		}
		if err := each(res.Object); err != nil {
			return err
		}
	}
	return nil
}

// selected keeps the stored objects that match f's selectable-field
// requirements in the target's version, which the store could not all
// evaluate (see filter): converted in one batch, as a list converts them.
func (s *Service) selected(ctx context.Context, t Target, f *filter, objs []engine.Object) ([]engine.Object, error) {
	if !f.selectable || len(objs) == 0 {
		return objs, nil
	}
	converted, err := fromStorageBatch(s.converter(ctx), t, objs)
	if err != nil {
		return nil, err
	}
	kept := objs[:0]
	for i, o := range objs {
		if f.matchSelectable(converted[i]) {
			kept = append(kept, o)
		}
	}
	return kept, nil
}
