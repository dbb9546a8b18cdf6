package resource

import (
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
)

// propagation is the delete stage that carries DeleteOptions.propagationPolicy
// to the garbage collector, as kube-apiserver does: Foreground and Orphan
// add their finalizer to the object (on w.Object, the stored body), which
// the strategy then keeps, marked for deletion, until the collector takes
// the finalizer away. A delete of an object already marked changes nothing.
func propagation(_ *Service, w *Write) error {
	var add string
	switch w.delete.PropagationPolicy {
	case "", PropagationBackground:
		return nil
	case PropagationForeground:
		add = FinalizerForeground
	case PropagationOrphan:
		add = FinalizerOrphan
	default:
		return engine.NewInvalid("meta.k8s.io", "DeleteOptions", "", []engine.FieldError{{Type: engine.CauseNotSupported,
			Path: "propagationPolicy", Message: fmt.Sprintf("Unsupported value: %q: supported values: %q, %q, %q",
				w.delete.PropagationPolicy, PropagationForeground, PropagationBackground, PropagationOrphan)}})
	}
	if gjson.GetBytes(w.Object, "metadata.deletionTimestamp").Exists() {
		return nil
	}
	var finalizers []string
	for _, f := range gjson.GetBytes(w.Object, "metadata.finalizers").Array() {
		finalizers = append(finalizers, f.String())
	}
	if slices.Contains(finalizers, add) {
		return nil
	}
	body, err := sjson.SetBytes(w.Object, "metadata.finalizers", append(finalizers, add))
	if err != nil {
		return fmt.Errorf("add finalizer %s: %w", add, err)
	}
	w.Object = body
	return nil
}
