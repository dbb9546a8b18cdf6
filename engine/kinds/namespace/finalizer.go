package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/internal/wait"
)

// A namespace is deleted as kube-apiserver and its namespace controller
// delete one: the delete marks it (the Strategy), and the Finalizer, in
// the background, empties it and then deletes it.

// Finalizer empties the namespaces being deleted and then deletes them.
// Build it with Register.
//
// It acts as kube's namespace controller does, as a client of the API:
// every write it makes goes through its Service's pipeline (a delete of
// each object, the namespace's /status and /finalize, and its delete), so
// that none skips managedFields, generation or a strategy. It reads the
// objects of a namespace as stored (Service.ListStored), whatever their
// kind, one list for all.
type Finalizer struct {
	service *resource.Service
	poked   wait.Nudge
	page    int // objects listed then deleted at a time (emptyPage)
}

// Snapshots gives the current registry snapshot (*reload.Reloader and an
// atomic.Pointer have it): the resources the Finalizer's writes address.
type Snapshots interface {
	Load() *registry.Snapshot
}

// manager is the field manager of the Finalizer's writes.
const manager = "namespace-controller"

// Run empties the namespaces being deleted and then deletes
// them, until ctx ends, addressing them as the current snapshot serves
// them. It looks when a delete through its Service marks
// one or lets an object with finalizers go, and every interval besides:
// for namespaces marked through another process or before a restart.
// A look that failed is tried again sooner (wait.Backoff).
// One process at a time works on a namespace (a Store lock); the others
// leave it for their next look.
func (s *Finalizer) Run(ctx context.Context, snapshots Snapshots, interval time.Duration, logger *slog.Logger) {
	var backoff wait.Backoff
	for {
		err := s.finalizeNamespaces(ctx, snapshots.Load())
		if err != nil && ctx.Err() == nil {
			logger.Warn("deleting namespaces", "err", err)
		}
		if !s.poked.Pause(ctx, backoff.After(err, interval)) {
			return
		}
	}
}

// look is one look over one snapshot: the namespaces' target, and the
// resources the snapshot serves, by storage key.
type look struct {
	namespaces resource.Target
	resources  map[engine.GroupResource]*registry.Resource
}

// finalizeNamespaces empties and deletes every namespace marked for
// deletion. A snapshot without the Namespace kind serves no namespace to
// delete.
func (s *Finalizer) finalizeNamespaces(ctx context.Context, snap *registry.Snapshot) error {
	res, ver, ok := snap.Lookup("", "v1", engine.Namespaces.Resource)
	if !ok {
		return nil
	}
	l := &look{namespaces: resource.Target{Resource: res, Version: ver}, resources: map[engine.GroupResource]*registry.Resource{}}
	for _, r := range snap.Resources() {
		l.resources[r.GroupResource()] = r
	}
	var marked [][]byte
	_, err := s.service.List(ctx, l.namespaces, engine.ListOptions{BodyFields: []engine.FieldRequirement{
		{Path: "metadata.deletionTimestamp", Operator: engine.OpNotEquals, Value: ""}}}, func(ns []byte) error {
		marked = append(marked, ns)
		return nil
	})
	if err != nil {
		return fmt.Errorf("list namespaces: %w", err)
	}
	var errs []error
	for _, ns := range marked {
		errs = append(errs, s.finalizeNamespace(ctx, l, ns))
	}
	return errors.Join(errs...)
}

// finalizeNamespace empties namespace ns, then deletes it if nothing is
// left in it: objects with finalizers stay, marked, until those who own
// the finalizers let them go. It does nothing while another process works
// on ns.
func (s *Finalizer) finalizeNamespace(ctx context.Context, l *look, ns []byte) error {
	name := gjson.GetBytes(ns, "metadata.name").String()
	release, ok, err := s.service.TryLock(ctx, "namespace/"+name)
	if err != nil || !ok {
		return err
	}
	defer release()
	waiting, err := s.emptyNamespace(ctx, l, name)
	if err != nil {
		return err
	}
	// Listed again rather than counted while emptying: a create that
	// passed its namespace check before the mark may have landed since.
	left := 0
	_, err = s.service.ListStored(ctx, engine.ListOptions{Namespace: name, Limit: 1}, func(engine.Object) error {
		left++
		return nil
	})
	if err != nil {
		return fmt.Errorf("list namespace %s: %w", name, err)
	}
	if left > 0 {
		err = s.reportRemaining(ctx, l.namespaces, ns, waiting)
	} else {
		err = s.deleteEmptyNamespace(ctx, l.namespaces, ns)
	}
	if code := engine.ErrorCode(err); code == engine.CodeNotFound || code == engine.CodeConflict {
		return nil // deleted or changed through another process: the next look sees it
	}
	return err
}

// deleteEmptyNamespace removes the kubernetes finalizer from an emptied
// namespace through /finalize, which deletes it when that was the last
// of its finalizers (in spec or metadata); one whose spec.finalizers were
// empty already is deleted, unless metadata.finalizers keep it.
func (s *Finalizer) deleteEmptyNamespace(ctx context.Context, t resource.Target, ns []byte) error {
	name := gjson.GetBytes(ns, "metadata.name").String()
	finalizers := specFinalizers(ns)
	if i := slices.Index(finalizers, finalizer); i >= 0 {
		body, err := sjson.SetBytes(ns, "spec.finalizers", slices.Delete(finalizers, i, i+1))
		if err != nil {
			return fmt.Errorf("remove the namespace finalizer: %w", err)
		}
		t.Subresource = "finalize"
		_, err = s.service.Update(ctx, t, name, body, resource.WriteOptions{FieldManager: manager})
		return err
	}
	if len(finalizers) > 0 {
		return nil // for whoever put them there, through Finalize
	}
	_, err := s.service.Delete(emptied(ctx, name), t, name, resource.DeleteOptions{})
	return err
}

// emptyPage is how many objects of a namespace emptyNamespace holds at a
// time: it lists a page, deletes it, and lists the next.
//
// Why: holding every key of a namespace (with no body) took 143 MB at a
// million objects, and the process's resident memory reached 1 GB while
// it listed them; a page keeps it flat, whatever the namespace holds.
const emptyPage = 500

// emptyNamespace deletes every object in namespace ns, of every resource,
// page by page: objects with finalizers are marked for deletion instead,
// and returned. The pages after the first are read at the first one's
// resourceVersion (continue tokens); should the emptying outlive the
// events log's retention (minutes, for a namespace of a million objects),
// the token expires and the look fails, and the next look goes on from
// the current state: what was deleted is gone, what was marked is marked
// again, which changes nothing.
func (s *Finalizer) emptyNamespace(ctx context.Context, l *look, ns string) ([]engine.Object, error) {
	var waiting []engine.Object
	opts := engine.ListOptions{Namespace: ns, Limit: int64(s.page)}
	for {
		var page []engine.Object
		meta, err := s.service.ListStored(ctx, opts, func(o engine.Object) error {
			if len(gjson.GetBytes(o.Body, "metadata.finalizers").Array()) == 0 {
				// Only objects with finalizers are kept whole: their
				// finalizers are reported, and an object of a resource no
				// longer served is marked from its stored body.
				o.Body, o.Remainder = nil, nil
			}
			page = append(page, o)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list namespace %s: %w", ns, err)
		}
		for _, o := range page {
			pending, err := s.remove(ctx, l, o)
			if err != nil && engine.ErrorCode(err) != engine.CodeNotFound {
				return nil, fmt.Errorf("delete %s %s/%s: %w", o.Key.Resource, ns, o.Key.Name, err)
			}
			if pending {
				waiting = append(waiting, o)
			}
		}
		if meta.Continue == "" {
			return waiting, nil
		}
		opts.Continue = meta.Continue
	}
}

// remove deletes stored object o, as a client deletes it (background
// propagation, as kube's namespace controller asks), and says whether it
// is pending (marked, while its finalizers keep it). An object of a
// resource the snapshot no longer serves cannot be addressed so; it is
// removed all the same (see resource.Service.RemoveUnserved for why).
func (s *Finalizer) remove(ctx context.Context, l *look, o engine.Object) (bool, error) {
	r, ok := l.resources[o.Key.Resource]
	if !ok {
		return s.service.RemoveUnserved(ctx, o)
	}
	v, ok := r.Version(r.StorageVersion)
	if !ok {
		return s.service.RemoveUnserved(ctx, o)
	}
	t := resource.Target{Resource: r, Version: v, Namespace: o.Key.Namespace}
	res, err := s.service.Delete(ctx, t, o.Key.Name, resource.DeleteOptions{PropagationPolicy: resource.PropagationBackground})
	return res.Pending, err
}

// reportRemaining says in namespace ns's status.conditions what it waits
// for, in the words of Kubernetes' namespace controller:
// NamespaceContentRemaining and NamespaceFinalizersRemaining. A condition
// is written only when its message changes, so that waiting does not
// rewrite the namespace every look.
func (s *Finalizer) reportRemaining(ctx context.Context, t resource.Target, ns []byte, waiting []engine.Object) error {
	resources, finalizers := map[string]int{}, map[string]int{}
	for _, o := range waiting {
		resources[o.Key.Resource.String()]++
		for _, f := range gjson.GetBytes(o.Body, "metadata.finalizers").Array() {
			finalizers[f.String()]++
		}
	}
	body, changed := ns, false
	for _, c := range []struct {
		kind, reason, message string
		counts                map[string]int
		each                  string
	}{
		{"NamespaceContentRemaining", "SomeResourcesRemain", "Some resources are remaining: ", resources, "%s has %d resource instances"},
		{"NamespaceFinalizersRemaining", "SomeFinalizersRemain", "Some content in the namespace has finalizers remaining: ", finalizers, "%s in %d resource instances"},
	} {
		if len(c.counts) == 0 {
			continue
		}
		message := c.message + counted(c.counts, c.each)
		path, current := "status.conditions.-1", gjson.Result{}
		for i, cond := range gjson.GetBytes(body, "status.conditions").Array() {
			if cond.Get("type").String() == c.kind {
				path, current = fmt.Sprintf("status.conditions.%d", i), cond
			}
		}
		if current.Get("message").String() == message && current.Get("status").String() == "True" {
			continue
		}
		var err error
		body, err = sjson.SetBytes(body, path, map[string]string{"type": c.kind, "status": "True", "reason": c.reason,
			"message": message, "lastTransitionTime": s.service.Now().UTC().Format("2006-01-02T15:04:05Z")})
		if err != nil {
			return fmt.Errorf("set namespace condition: %w", err)
		}
		changed = true
	}
	if !changed {
		return nil
	}
	t.Subresource = "status"
	_, err := s.service.Update(ctx, t, gjson.GetBytes(ns, "metadata.name").String(), body, resource.WriteOptions{FieldManager: manager})
	return err
}

// counted lists counts as each formats a key and its count, sorted, so
// that the same counts always read the same.
func counted(counts map[string]int, each string) string {
	parts := make([]string, 0, len(counts))
	for k, n := range counts {
		parts = append(parts, fmt.Sprintf(each, k, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
