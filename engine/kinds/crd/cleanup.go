package crd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// A definition is deleted as kube-apiserver deletes one: the delete marks
// it (Strategy.PrepareForDelete adds the cleanup finalizer and the
// Terminating condition), and the Cleaner, in the background, deletes its
// objects, then lets it go. Like the namespace finalizer, it is a client of
// the API: every write goes through the Service's pipeline.

// cleanupFinalizer is kube's finalizer of a definition whose objects are
// being deleted.
const cleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// cleanupBatch is how many objects the Cleaner deletes between two looks
// at what is left, so that a kind with many objects holds no list open and
// reports its progress.
const cleanupBatch = 500

// cleaner is the field manager of the Cleaner's writes.
const cleaner = "apiextensions-controller"

// Cleaner deletes the objects of the definitions being deleted, then
// removes their cleanup finalizer. Build it with NewCleaner.
type Cleaner struct {
	service *resource.Service
	defs    interface{ Load() *registry.Snapshot }
	logger  *slog.Logger
}

// NewCleaner returns a Cleaner writing through service, addressing the
// kinds as defs serves them.
func NewCleaner(service *resource.Service, defs interface{ Load() *registry.Snapshot }, logger *slog.Logger) *Cleaner {
	return &Cleaner{service: service, defs: defs, logger: logger}
}

// Run looks for definitions being deleted every interval until ctx ends.
// One process at a time cleans up a definition (a Store lock).
func (c *Cleaner) Run(ctx context.Context, interval time.Duration) {
	for {
		if err := c.cleanAll(ctx); err != nil && ctx.Err() == nil {
			c.logger.Warn("deleting CustomResourceDefinitions", "err", err)
		}
		select {
		case <-time.After(interval):
		case <-ctx.Done():
			return
		}
	}
}

// cleanAll cleans up every definition marked for deletion.
func (c *Cleaner) cleanAll(ctx context.Context) error {
	r, v, ok := c.defs.Load().Lookup(GroupResource.Group, version, GroupResource.Resource)
	if !ok {
		return nil
	}
	t := resource.Target{Resource: r, Version: v}
	var marked [][]byte
	_, err := c.service.List(ctx, t, engine.ListOptions{BodyFields: []engine.FieldRequirement{
		{Path: "metadata.deletionTimestamp", Operator: engine.OpNotEquals, Value: ""}}}, func(obj []byte) error {
		marked = append(marked, obj)
		return nil
	})
	if err != nil {
		return fmt.Errorf("list CustomResourceDefinitions: %w", err)
	}
	var errs []error
	for _, obj := range marked {
		if slices.Contains(finalizers(obj), cleanupFinalizer) {
			errs = append(errs, c.clean(ctx, t, obj))
		}
	}
	return errors.Join(errs...)
}

// clean deletes the objects of definition obj in batches, then removes
// its finalizer, which deletes it.
func (c *Cleaner) clean(ctx context.Context, t resource.Target, obj []byte) error {
	name := nameOf(obj)
	release, ok, err := c.service.TryLock(ctx, "customresourcedefinition/"+name)
	if err != nil || !ok {
		return err
	}
	defer release()
	gr := engine.GroupResource{Group: gjson.GetBytes(obj, "spec.group").Str, Resource: gjson.GetBytes(obj, "spec.names.plural").Str}
	if obj, err = c.setTerminating(ctx, t, obj, "InstanceDeletionInProgress", "CustomResource deletion is in progress"); err != nil {
		return err
	}
	if err := c.deleteObjects(ctx, gr, obj); err != nil {
		return err
	}
	body, err := sjson.SetBytes(obj, "metadata.finalizers", slices.DeleteFunc(finalizers(obj), func(f string) bool { return f == cleanupFinalizer }))
	if err != nil {
		return fmt.Errorf("remove the cleanup finalizer: %w", err)
	}
	_, err = c.service.Update(ctx, t, name, body, resource.WriteOptions{FieldManager: cleaner})
	if code := engine.ErrorCode(err); code == engine.CodeNotFound || code == engine.CodeConflict {
		return nil // changed meanwhile: the next look sees it
	}
	return err
}

// deleteObjects deletes the objects of gr, the kind of definition obj,
// in batches; none of a published definition's (see publish.go), whatever
// put the finalizer on it: its kind is a definition file's, whose objects
// a definition's delete never takes.
func (c *Cleaner) deleteObjects(ctx context.Context, gr engine.GroupResource, obj []byte) error {
	if file := annotatedFile(obj); file != "" {
		c.logger.Info("a published CustomResourceDefinition is deleted: its objects are kept", "name", nameOf(obj), "file", file)
		return nil
	}
	for {
		n, err := c.deleteBatch(ctx, gr)
		if err != nil || n == 0 {
			return err
		}
	}
}

// deleteBatch deletes up to cleanupBatch stored objects of gr, as a
// client deletes them, and returns how many there were.
func (c *Cleaner) deleteBatch(ctx context.Context, gr engine.GroupResource) (int, error) {
	var batch []engine.Object
	_, err := c.service.ListStored(ctx, engine.ListOptions{Resource: gr, Limit: cleanupBatch}, func(o engine.Object) error {
		o.Body, o.Remainder = nil, nil
		batch = append(batch, o)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("list %s: %w", gr, err)
	}
	for _, o := range batch {
		if err := c.remove(ctx, o); err != nil && engine.ErrorCode(err) != engine.CodeNotFound {
			return 0, fmt.Errorf("delete %s %s/%s: %w", gr, o.Key.Namespace, o.Key.Name, err)
		}
	}
	return len(batch), nil
}

// remove deletes stored object o through the pipeline when its kind is
// served, else from the store.
func (c *Cleaner) remove(ctx context.Context, o engine.Object) error {
	r, v, ok := c.served(o.Key.Resource)
	if !ok {
		_, err := c.service.RemoveUnserved(ctx, o)
		return err
	}
	t := resource.Target{Resource: r, Version: v, Namespace: o.Key.Namespace}
	_, err := c.service.Delete(ctx, t, o.Key.Name, resource.DeleteOptions{PropagationPolicy: resource.PropagationBackground})
	return err
}

// served finds gr's resource and storage version in the current snapshot.
func (c *Cleaner) served(gr engine.GroupResource) (*registry.Resource, *registry.Version, bool) {
	for _, r := range c.defs.Load().Resources() {
		if r.GroupResource() == gr {
			v, ok := r.Version(r.StorageVersion)
			return r, v, ok
		}
	}
	return nil, nil, false
}

// setTerminating writes the Terminating condition through /status unless
// it says so already, and returns the definition as it then is.
func (c *Cleaner) setTerminating(ctx context.Context, t resource.Target, obj []byte, reason, message string) ([]byte, error) {
	body, changed, err := withTerminating(obj, reason, message, time.Now())
	if err != nil || !changed {
		return obj, err
	}
	t.Subresource = "status"
	res, err := c.service.Update(ctx, t, nameOf(obj), body, resource.WriteOptions{FieldManager: cleaner})
	if err != nil {
		return nil, err
	}
	return res.Object, nil
}

// withTerminating sets kube's Terminating condition in obj's status; it
// reports whether anything changed.
func withTerminating(obj []byte, reason, message string, now time.Time) ([]byte, bool, error) {
	path := "status.conditions.-1"
	for i, cond := range gjson.GetBytes(obj, "status.conditions").Array() {
		if cond.Get("type").Str == "Terminating" {
			if cond.Get("reason").Str == reason {
				return obj, false, nil
			}
			path = fmt.Sprintf("status.conditions.%d", i)
		}
	}
	out, err := sjson.SetBytes(obj, path, condition{Type: "Terminating", Status: "True", Reason: reason, Message: message,
		LastTransitionTime: now.UTC().Format(time.RFC3339)})
	return out, true, err
}

// finalizers returns metadata.finalizers.
func finalizers(obj []byte) []string {
	var out []string
	for _, f := range gjson.GetBytes(obj, "metadata.finalizers").Array() {
		out = append(out, f.Str)
	}
	return out
}
