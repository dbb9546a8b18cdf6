package namespace

import (
	"context"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
)

// nameLabel is set on every namespace, as kube-apiserver does, so that
// selectors can pick namespaces by name.
const nameLabel = "kubernetes.io/metadata.name"

// finalizer is the spec.finalizers value every namespace gets on create,
// as in Kubernetes: the Finalizer removes it once the namespace is empty.
// Other values are removed by whoever put them there, through /finalize.
const finalizer = "kubernetes"

// System are the namespaces kube-apiserver creates at start (default,
// and those of its system namespaces controller) and tools assume: a
// controller keeps its leader-election Lease in kube-system, a node its
// heartbeat in kube-node-lease. Start creates them; none may be deleted.
var System = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// Strategy is the Namespace kind's strategy. Build it with Register.
type Strategy struct {
	resource.CustomResource
	finalizer *Finalizer
}

var _ resource.Strategy = (*Strategy)(nil)

// NameRule requires a DNS label.
func (*Strategy) NameRule() apivalidation.ValidateNameFunc {
	return apivalidation.ValidateNamespaceName
}

// AllowUnconditionalUpdate is true, as for kube-apiserver's namespaces.
func (*Strategy) AllowUnconditionalUpdate() bool { return true }

// DeletesCollections is false, as in kube-apiserver: one request would
// delete every namespace and everything in them.
func (*Strategy) DeletesCollections() bool { return false }

// Subresources: finalize, which alone changes spec.finalizers.
func (*Strategy) Subresources() []string { return []string{"finalize"} }

// PrepareForCreate makes a new namespace Active, with the name label and
// the kubernetes finalizer in spec.finalizers.
func (*Strategy) PrepareForCreate(w *resource.Write) error {
	label(w)
	out, err := sjson.SetBytes(w.Object, "status", map[string]string{"phase": "Active"})
	if err != nil {
		return fmt.Errorf("prepare namespace: %w", err)
	}
	if fits(w.Object, "spec", gjson.Result.IsObject) && fits(w.Object, "spec.finalizers", gjson.Result.IsArray) &&
		!slices.Contains(specFinalizers(w.Object), finalizer) {
		if out, err = sjson.SetBytes(out, "spec.finalizers.-1", finalizer); err != nil {
			return fmt.Errorf("prepare namespace: %w", err)
		}
	}
	w.Object = out
	return nil
}

// PrepareForUpdate is kube-apiserver's three namespace strategies: an
// update keeps spec.finalizers and status; /status keeps spec (metadata
// changes sent to it are kept, as Kubernetes keeps them); /finalize takes
// only spec.finalizers.
func (*Strategy) PrepareForUpdate(w *resource.Write) error {
	label(w)
	switch w.Target.Subresource {
	case "status":
		return w.Keep("spec")
	case "finalize":
		finalizers := gjson.GetBytes(w.Object, "spec.finalizers")
		w.Object, w.Meta = w.Old, w.OldMeta.DeepCopy()
		label(w)
		if !finalizers.Exists() {
			return w.Drop("spec.finalizers")
		}
		out, err := sjson.SetRawBytes(w.Object, "spec.finalizers", []byte(finalizers.Raw))
		if err != nil {
			return fmt.Errorf("set spec.finalizers: %w", err)
		}
		w.Object = out
		return nil
	}
	if err := w.Keep("spec.finalizers"); err != nil {
		return err
	}
	return w.Keep("status")
}

// PrepareForDelete refuses the protected namespaces and marks every other
// one Terminating: the Finalizer empties it, then deletes it, through
// this delete when its spec.finalizers were empty already.
func (*Strategy) PrepareForDelete(w *resource.Write) (bool, error) {
	if slices.Contains(System, w.Name) {
		return false, &engine.Error{Code: engine.CodeForbidden, Kind: "namespaces", Name: w.Name,
			Message: fmt.Sprintf("namespaces %q is forbidden: this namespace may not be deleted", w.Name)}
	}
	if isEmptied(w.Context(), w.Name) && gjson.GetBytes(w.Object, "metadata.deletionTimestamp").Exists() &&
		len(specFinalizers(w.Object)) == 0 {
		return resource.CustomResource{}.PrepareForDelete(w) // gone, unless metadata.finalizers keep it
	}
	if gjson.GetBytes(w.Object, "status.phase").String() == "Terminating" {
		return true, nil
	}
	out, err := sjson.SetBytes(w.Object, "status.phase", "Terminating")
	if err != nil {
		return false, fmt.Errorf("mark namespace for deletion: %w", err)
	}
	w.Object = out
	return true, nil
}

// Finalized reports whether spec.finalizers are gone too.
func (*Strategy) Finalized(stored []byte) bool { return len(specFinalizers(stored)) == 0 }

// AfterWrite makes the Finalizer look at a namespace marked for deletion.
func (s *Strategy) AfterWrite(w *resource.Write) {
	if w.Operation == resource.DeleteOperation || w.Meta != nil && w.Meta.DeletionTimestamp != nil {
		s.finalizer.poked.Poke()
	}
}

// emptiedKey is the context key of emptied.
type emptiedKey struct{}

// emptied is ctx for the Finalizer's delete of namespace name, which it
// has emptied. A client's delete of a namespace being deleted leaves it
// to the Finalizer (it answers it as it is); the Finalizer's own delete,
// once nothing is left in it, deletes it. (kube-apiserver deletes a marked
// namespace with no spec.finalizers on anyone's delete; dynapi has left
// that to the Finalizer, and keeps it so.)
func emptied(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, emptiedKey{}, name)
}

// isEmptied reports whether ctx is the Finalizer's delete of namespace name.
func isEmptied(ctx context.Context, name string) bool {
	return ctx.Value(emptiedKey{}) == name
}

// label sets the name label.
func label(w *resource.Write) {
	if w.Meta.Labels == nil {
		w.Meta.Labels = map[string]string{}
	}
	w.Meta.Labels[nameLabel] = w.Meta.Name
}

// fits reports whether the value at path is missing, null or of the kind
// is checks: one that is not is left for the schema to report as sent.
func fits(obj []byte, path string, is func(gjson.Result) bool) bool {
	v := gjson.GetBytes(obj, path)
	return !v.Exists() || v.Type == gjson.Null || is(v)
}

// specFinalizers returns a namespace's spec.finalizers.
func specFinalizers(obj []byte) []string {
	var out []string
	for _, f := range gjson.GetBytes(obj, "spec.finalizers").Array() {
		out = append(out, f.String())
	}
	return out
}
