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
	"github.com/dynapi/dynapi/engine/resource"
)

// A namespace is deleted as kube-apiserver and its namespace controller
// delete one: the delete marks it (the Strategy), and the Finalizer, in
// the background, empties it and then deletes it.

// Finalizer empties the namespaces being deleted and then deletes them.
// Build it with Register.
type Finalizer struct {
	service *resource.Service
	poked   chan struct{}
}

// Run empties the namespaces being deleted and then deletes
// them, until ctx ends. It looks when a delete through its Service marks
// one or lets an object with finalizers go, and every interval besides:
// for namespaces marked through another process or before a restart.
// One process at a time works on a namespace (a Store lock); the others
// leave it for their next look.
func (s *Finalizer) Run(ctx context.Context, interval time.Duration, logger *slog.Logger) {
	for {
		if err := s.finalizeNamespaces(ctx); err != nil && ctx.Err() == nil {
			logger.Warn("deleting namespaces", "err", err)
		}
		select {
		case <-s.poked:
		case <-time.After(interval):
		case <-ctx.Done():
			return
		}
	}
}

// poke makes Run look now.
func (s *Finalizer) poke() {
	select {
	case s.poked <- struct{}{}:
	default: // a look is due already
	}
}

// finalizeNamespaces empties and deletes every namespace marked for
// deletion.
func (s *Finalizer) finalizeNamespaces(ctx context.Context) error {
	var marked []engine.Object
	_, err := s.service.Store.List(ctx, engine.ListOptions{Resource: engine.Namespaces, BodyFields: []engine.FieldRequirement{
		{Path: "metadata.deletionTimestamp", Operator: engine.OpNotEquals, Value: ""}}}, func(o engine.Object) error {
		marked = append(marked, o)
		return nil
	})
	if err != nil {
		return fmt.Errorf("list namespaces: %w", err)
	}
	var errs []error
	for _, ns := range marked {
		errs = append(errs, s.finalizeNamespace(ctx, ns))
	}
	return errors.Join(errs...)
}

// finalizeNamespace empties namespace ns, then deletes it if nothing is
// left in it: objects with finalizers stay, marked, until those who own
// the finalizers let them go. It does nothing while another process works
// on ns.
func (s *Finalizer) finalizeNamespace(ctx context.Context, ns engine.Object) error {
	release, ok, err := s.service.Store.TryLock(ctx, "namespace/"+ns.Key.Name)
	if err != nil || !ok {
		return err
	}
	defer release()
	waiting, err := s.emptyNamespace(ctx, ns.Key.Name)
	if err != nil {
		return err
	}
	// Listed again rather than counted while emptying: a create that
	// passed its namespace check before the mark may have landed since.
	left := 0
	_, err = s.service.Store.List(ctx, engine.ListOptions{Namespace: ns.Key.Name, Limit: 1}, func(engine.Object) error {
		left++
		return nil
	})
	if err != nil {
		return fmt.Errorf("list namespace %s: %w", ns.Key.Name, err)
	}
	if left > 0 {
		err = s.reportRemaining(ctx, ns, waiting)
	} else {
		err = s.deleteEmptyNamespace(ctx, ns)
	}
	if code := engine.ErrorCode(err); code == engine.CodeNotFound || code == engine.CodeConflict {
		return nil // deleted or changed through another process: the next look sees it
	}
	return err
}

// deleteEmptyNamespace removes the kubernetes finalizer from an emptied
// namespace and deletes it, unless other finalizers (in spec or metadata)
// keep it.
func (s *Finalizer) deleteEmptyNamespace(ctx context.Context, ns engine.Object) error {
	finalizers := specFinalizers(ns.Body)
	if i := slices.Index(finalizers, finalizer); i >= 0 {
		body, err := sjson.SetBytes(ns.Body, "spec.finalizers", slices.Delete(finalizers, i, i+1))
		if err != nil {
			return fmt.Errorf("remove the namespace finalizer: %w", err)
		}
		ns.Body = body
		if ns, err = s.service.Store.Update(ctx, ns); err != nil {
			return err
		}
	}
	if len(specFinalizers(ns.Body)) > 0 {
		return nil // for whoever put them there, through Finalize
	}
	_, err := s.service.RemoveStored(ctx, ns)
	return err
}

// emptyNamespace deletes every object in namespace ns, of every resource:
// objects with finalizers are marked for deletion instead, and returned.
func (s *Finalizer) emptyNamespace(ctx context.Context, ns string) ([]engine.Object, error) {
	var keys []engine.Object
	_, err := s.service.Store.List(ctx, engine.ListOptions{Namespace: ns}, func(o engine.Object) error {
		if len(gjson.GetBytes(o.Body, "metadata.finalizers").Array()) == 0 {
			// Only objects with finalizers are marked rather than deleted,
			// which writes them back whole: stored version, body and
			// remainder. Why not keep every body: memory would grow with
			// the namespace (80,000 objects held 150 MiB).
			o.Body, o.Remainder = nil, nil
		}
		keys = append(keys, o)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list namespace %s: %w", ns, err)
	}
	var waiting []engine.Object
	for _, o := range keys {
		pending, err := s.service.RemoveStored(ctx, o)
		if err != nil && engine.ErrorCode(err) != engine.CodeNotFound {
			return nil, fmt.Errorf("delete %s %s/%s: %w", o.Key.Resource, ns, o.Key.Name, err)
		}
		if pending {
			waiting = append(waiting, o)
		}
	}
	return waiting, nil
}

// reportRemaining says in namespace ns's status.conditions what it waits
// for, in the words of Kubernetes' namespace controller:
// NamespaceContentRemaining and NamespaceFinalizersRemaining. A condition
// is written only when its message changes, so that waiting does not
// rewrite the namespace every look.
func (s *Finalizer) reportRemaining(ctx context.Context, ns engine.Object, waiting []engine.Object) error {
	resources, finalizers := map[string]int{}, map[string]int{}
	for _, o := range waiting {
		resources[o.Key.Resource.String()]++
		for _, f := range gjson.GetBytes(o.Body, "metadata.finalizers").Array() {
			finalizers[f.String()]++
		}
	}
	body, changed := ns.Body, false
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
	ns.Body = body
	_, err := s.service.Store.Update(ctx, ns)
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
