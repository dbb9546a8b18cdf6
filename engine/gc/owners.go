package gc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
)

// finalizeOwners works on the owners deleted in foreground or orphaning.
func (p *pass) finalizeOwners(ctx context.Context) error {
	return pages(func(after engine.ObjectKey) ([]engine.Object, error) {
		return p.store.Finalizing(ctx, after, pageSize)
	}, func(o engine.Object) error { return p.finalizeOwner(ctx, o) })
}

func (p *pass) finalizeOwner(ctx context.Context, o engine.Object) error {
	uid := gjson.GetBytes(o.Body, "metadata.uid").String()
	finalizers := gjson.GetBytes(o.Body, "metadata.finalizers").Array()
	for i := len(finalizers) - 1; i >= 0; i-- {
		var done bool
		var err error
		switch finalizers[i].String() {
		case resource.FinalizerOrphan:
			done, err = p.orphanDependents(ctx, uid)
		case resource.FinalizerForeground:
			done, err = p.deleteDependents(ctx, uid)
		default:
			continue
		}
		if err != nil || !done {
			return err
		}
		if err := p.removeFinalizer(ctx, o, i, finalizers[i].String()); err != nil {
			return err
		}
	}
	return nil
}

// orphanDependents removes the references to the owner uid from its
// dependents, and says whether none is left.
func (p *pass) orphanDependents(ctx context.Context, uid string) (bool, error) {
	err := pages(func(after engine.ObjectKey) ([]engine.Object, error) {
		return p.store.OwnedBy(ctx, uid, after, pageSize)
	}, func(d engine.Object) error {
		return p.keepRefs(ctx, d, func(ref string) bool { return ref != uid })
	})
	return err == nil, err
}

// keepRefs removes from d the ownerReferences whose uid keep refuses.
func (p *pass) keepRefs(ctx context.Context, d engine.Object, keep func(uid string) bool) error {
	refs := gjson.GetBytes(d.Body, "metadata.ownerReferences")
	var kept []json.RawMessage
	for _, r := range refs.Array() {
		if keep(r.Get("uid").String()) {
			kept = append(kept, json.RawMessage(r.Raw))
		}
	}
	if len(kept) == len(refs.Array()) {
		return nil
	}
	ops := []map[string]any{{"op": "test", "path": "/metadata/ownerReferences", "value": json.RawMessage(refs.Raw)}}
	if len(kept) == 0 {
		ops = append(ops, map[string]any{"op": "remove", "path": "/metadata/ownerReferences"})
	} else {
		ops = append(ops, map[string]any{"op": "replace", "path": "/metadata/ownerReferences", "value": kept})
	}
	return p.patch(ctx, d, ops)
}

// trimReferences removes, from the dependents that still have an owner,
// their references to owners that are gone, as kube-controller-manager's
// collector does.
func (p *pass) trimReferences(ctx context.Context) error {
	return pages(func(after engine.ObjectKey) ([]engine.Object, error) {
		return p.store.PartlyOwned(ctx, after, pageSize)
	}, func(d engine.Object) error {
		if gjson.GetBytes(d.Body, "metadata.deletionTimestamp").Exists() || p.unresolvable(d) {
			return nil
		}
		present, err := p.store.PresentOwners(ctx, d.Key)
		if err != nil || len(present) == 0 {
			return err
		}
		return p.keepRefs(ctx, d, func(uid string) bool { return slices.Contains(present, uid) })
	})
}

// deleteDependents deletes the dependents of the owner uid that are not
// being deleted yet (in foreground those that have dependents of their
// own, so that the deletion goes down the chain), and says whether none
// that blocks the owner's deletion (blockOwnerDeletion) is left.
func (p *pass) deleteDependents(ctx context.Context, uid string) (bool, error) {
	blocked := false
	err := pages(func(after engine.ObjectKey) ([]engine.Object, error) {
		return p.store.OwnedBy(ctx, uid, after, pageSize)
	}, func(d engine.Object) error {
		gone := false
		others, err := p.otherOwners(ctx, d, uid)
		if err != nil {
			return err
		}
		if others {
			// Another owner keeps it: only the reference goes.
			return p.keepRefs(ctx, d, func(ref string) bool { return ref != uid })
		}
		if !gjson.GetBytes(d.Body, "metadata.deletionTimestamp").Exists() {
			policy, err := p.policyFor(ctx, d)
			if err != nil {
				return err
			}
			if gone, err = p.delete(ctx, d, policy); err != nil {
				return err
			}
		}
		if !gone && blocks(d, uid) {
			blocked = true
		}
		return nil
	})
	return err == nil && !blocked, err
}

// otherOwners says whether d has an owner besides uid that exists.
func (p *pass) otherOwners(ctx context.Context, d engine.Object, uid string) (bool, error) {
	if len(gjson.GetBytes(d.Body, "metadata.ownerReferences").Array()) < 2 {
		return false, nil
	}
	present, err := p.store.PresentOwners(ctx, d.Key)
	return slices.ContainsFunc(present, func(o string) bool { return o != uid }), err
}

// blocks says whether dependent d's reference to the owner uid has
// blockOwnerDeletion.
func blocks(d engine.Object, uid string) bool {
	for _, r := range gjson.GetBytes(d.Body, "metadata.ownerReferences").Array() {
		if r.Get("uid").String() == uid && r.Get("blockOwnerDeletion").Bool() {
			return true
		}
	}
	return false
}

// policyFor is the policy a dependent of an owner deleted in foreground
// is deleted with: Foreground when it has dependents itself.
func (p *pass) policyFor(ctx context.Context, d engine.Object) (string, error) {
	own, err := p.store.OwnedBy(ctx, gjson.GetBytes(d.Body, "metadata.uid").String(), engine.ObjectKey{}, 1)
	if err != nil || len(own) == 0 {
		return resource.PropagationBackground, err
	}
	return resource.PropagationForeground, nil
}

// removeFinalizer removes finalizer name, at index i, from o: the write
// pipeline deletes o when it was the last.
func (p *pass) removeFinalizer(ctx context.Context, o engine.Object, i int, name string) error {
	at := fmt.Sprintf("/metadata/finalizers/%d", i)
	return p.patch(ctx, o, []map[string]any{{"op": "test", "path": at, "value": name}, {"op": "remove", "path": at}})
}

// patch applies a JSON patch to o through the Service. A test that fails
// (o changed) or o gone leaves it for the next pass.
func (p *pass) patch(ctx context.Context, o engine.Object, ops []map[string]any) error {
	t, ok := p.target(o.Key)
	if !ok {
		return nil
	}
	body, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("encode patch: %w", err)
	}
	_, err = p.service.Patch(ctx, t, o.Key.Name, resource.JSONPatch, body,
		resource.WriteOptions{FieldManager: manager, FieldValidation: resource.FieldValidationIgnore})
	if err == nil {
		p.did++
	}
	if settled(err) {
		return nil
	}
	return err
}

// delete deletes o (if it is still the object read: its uid) with policy,
// and says whether it is gone.
func (p *pass) delete(ctx context.Context, o engine.Object, policy string) (bool, error) {
	t, ok := p.target(o.Key)
	if !ok {
		return false, nil
	}
	res, err := p.service.Delete(ctx, t, o.Key.Name, resource.DeleteOptions{
		PreconditionUID: gjson.GetBytes(o.Body, "metadata.uid").String(), PropagationPolicy: policy})
	if err == nil {
		p.did++
		return !res.Pending, nil
	}
	if engine.ErrorCode(err) == engine.CodeNotFound {
		return true, nil
	}
	if settled(err) {
		return false, nil
	}
	return false, fmt.Errorf("delete %s %s/%s: %w", o.Key.Resource, o.Key.Namespace, o.Key.Name, err)
}

// collectOwnerless deletes the dependents whose owners are all gone.
func (p *pass) collectOwnerless(ctx context.Context) error {
	return pages(func(after engine.ObjectKey) ([]engine.Object, error) {
		return p.store.Ownerless(ctx, after, pageSize)
	}, func(d engine.Object) error {
		if gjson.GetBytes(d.Body, "metadata.deletionTimestamp").Exists() || p.unresolvable(d) {
			return nil
		}
		_, err := p.delete(ctx, d, policyOf(d))
		return err
	})
}

// policyOf is the policy an ownerless dependent is deleted with: what its
// own finalizers ask for, as in kube-controller-manager, else Background.
func policyOf(d engine.Object) string {
	var names []string
	for _, f := range gjson.GetBytes(d.Body, "metadata.finalizers").Array() {
		names = append(names, f.String())
	}
	switch {
	case slices.Contains(names, resource.FinalizerOrphan):
		return resource.PropagationOrphan
	case slices.Contains(names, resource.FinalizerForeground):
		return resource.PropagationForeground
	}
	return resource.PropagationBackground
}

// unresolvable says whether kube-controller-manager's collector cannot
// resolve one of d's owner references, and so never collects d for it:
// an owner whose kind is not served in that apiVersion (its REST mapping
// fails, and it retries until discovery serves it: the v1 Pod that an
// operator run outside a cluster names keeps its objects), or, for a
// cluster-scoped dependent, a namespaced owner (OwnerRefInvalidNamespace).
func (p *pass) unresolvable(d engine.Object) bool {
	for _, r := range gjson.GetBytes(d.Body, "metadata.ownerReferences").Array() {
		group, version := engine.ParseAPIVersion(r.Get("apiVersion").String())
		res, ok := p.snap.ResourceByKind(group, r.Get("kind").String())
		if !ok {
			return true
		}
		if v, ok := res.Version(version); !ok || !v.Served {
			return true
		}
		if d.Key.Namespace == "" && res.Namespaced {
			return true
		}
	}
	return false
}
