package resource

import (
	"context"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
)

// DeleteOptions are the preconditions and options of a delete.
type DeleteOptions struct {
	DryRun bool
	// PreconditionUID and PreconditionResourceVersion, when set, must match
	// the object, as metav1.Preconditions.
	PreconditionUID             string
	PreconditionResourceVersion string
}

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

// Delete deletes one object, or marks it for deletion while it has
// finalizers. A namespace is marked and emptied in the background (see
// terminateNamespace).
// Errors: NotFound, Conflict (a precondition failed), Forbidden.
func (s *Service) Delete(ctx context.Context, t Target, name string, opts DeleteOptions) (DeleteResult, error) {
	if isNamespaces(t) && protectedNamespaces[name] {
		return DeleteResult{}, &engine.Error{Code: engine.CodeForbidden, Kind: "namespaces", Name: name,
			Message: fmt.Sprintf("namespaces %q is forbidden: this namespace may not be deleted", name)}
	}
	for attempt := 0; ; attempt++ {
		old, err := s.Store.Get(ctx, t.key(name))
		if err != nil {
			return DeleteResult{}, err
		}
		if err := checkPreconditions(t, old, opts); err != nil {
			return DeleteResult{}, err
		}
		res, err := s.deleteOne(ctx, t, old, opts)
		if engine.ErrorCode(err) == engine.CodeConflict && opts.PreconditionResourceVersion == "" && attempt < maxConflictRetries {
			continue
		}
		return res, err
	}
}

func (s *Service) deleteOne(ctx context.Context, t Target, old engine.Object, opts DeleteOptions) (DeleteResult, error) {
	uid := gjson.GetBytes(old.Body, "metadata.uid").String()
	if isNamespaces(t) {
		return s.terminateNamespace(ctx, t, old, opts)
	}
	if opts.DryRun {
		out, err := fromStorage(t, old)
		return DeleteResult{Object: out, UID: uid, Pending: hasFinalizers(old.Body)}, err
	}
	last, pending, err := s.deleteStored(ctx, old)
	if err != nil {
		return DeleteResult{}, err
	}
	out, err := fromStorage(t, last)
	return DeleteResult{Object: out, UID: uid, Pending: pending}, err
}

// deleteStored removes a stored object, or, while it has finalizers, sets its
// deletionTimestamp (once) and leaves it for whoever owns the finalizers.
// Errors: NotFound, Conflict when the object changed since it was read.
func (s *Service) deleteStored(ctx context.Context, old engine.Object) (engine.Object, bool, error) {
	if !hasFinalizers(old.Body) {
		last, err := s.Store.Delete(ctx, old.Key, old.ResourceVersion)
		return last, false, err
	}
	if gjson.GetBytes(old.Body, "metadata.deletionTimestamp").Exists() {
		return old, true, nil
	}
	marked, err := s.markDeleted(old)
	if err != nil {
		return engine.Object{}, false, err
	}
	updated, err := s.Store.Update(ctx, marked)
	return updated, true, err
}

// markDeleted sets deletionTimestamp and bumps generation, as graceful
// deletion does in kube-apiserver.
func (s *Service) markDeleted(o engine.Object) (engine.Object, error) {
	body, err := sjson.SetBytes(o.Body, "metadata.deletionTimestamp", s.Now().UTC().Format("2006-01-02T15:04:05Z"))
	if err == nil {
		body, err = sjson.SetBytes(body, "metadata.deletionGracePeriodSeconds", 0)
	}
	if err == nil {
		body, err = sjson.SetBytes(body, "metadata.generation", gjson.GetBytes(o.Body, "metadata.generation").Int()+1)
	}
	if err != nil {
		return engine.Object{}, fmt.Errorf("mark for deletion: %w", err)
	}
	o.Body = body
	return o, nil
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

// DeleteCollection deletes every object the list options select, each as
// Delete would, and returns them in the target's version.
// Errors: those of List and Delete.
func (s *Service) DeleteCollection(ctx context.Context, t Target, lo engine.ListOptions, opts DeleteOptions) ([][]byte, error) {
	var matched []engine.Object
	lo.Resource, lo.Namespace = t.GroupResource(), t.Namespace
	if _, err := s.Store.List(ctx, lo, func(o engine.Object) error {
		matched = append(matched, o)
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([][]byte, 0, len(matched))
	for _, o := range matched {
		if isNamespaces(t) && protectedNamespaces[o.Key.Name] {
			continue
		}
		res, err := s.deleteOne(ctx, t, o, opts)
		if code := engine.ErrorCode(err); code == engine.CodeNotFound || code == engine.CodeConflict {
			continue // deleted or changed by someone else since the list
		}
		if err != nil {
			return nil, err
		}
		out = append(out, res.Object)
	}
	return out, nil
}
