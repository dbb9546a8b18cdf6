// Package configmap is the ConfigMap kind's strategy, kube-apiserver's:
// once `immutable: true` is stored, data and binaryData cannot change and
// immutable cannot be unset. Its Immutable check is the Secret's too.
package configmap

import (
	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
)

// Resource is the resource the Strategy serves.
var Resource = engine.GroupResource{Resource: "configmaps"}

// Strategy is the ConfigMap kind's strategy.
type Strategy struct{ resource.CustomResource }

var _ resource.Strategy = Strategy{}

// Register makes service serve configmaps with their Strategy.
func Register(service *resource.Service) { service.Register(Resource, Strategy{}) }

// AllowUnconditionalUpdate is true, as for kube-apiserver's ConfigMaps.
func (Strategy) AllowUnconditionalUpdate() bool { return true }

// Validate refuses an update of an immutable ConfigMap's data.
func (Strategy) Validate(w *resource.Write) ([]engine.FieldError, []string) {
	return Immutable(w, "data", "binaryData"), nil
}

// immutableMessage is kube-apiserver's.
const immutableMessage = "field is immutable when `immutable` is set"

// Immutable returns kube-apiserver's errors for an update of an object
// stored with `immutable: true` that unsets immutable or changes one of
// fields (top-level field names).
func Immutable(w *resource.Write, fields ...string) []engine.FieldError {
	if w.Operation != resource.UpdateOperation || !gjson.GetBytes(w.Old, "immutable").Bool() {
		return nil
	}
	var errs []engine.FieldError
	if !gjson.GetBytes(w.Object, "immutable").Bool() {
		errs = append(errs, Forbidden("immutable", immutableMessage))
	}
	for _, f := range fields {
		if w.Changed(f) {
			errs = append(errs, Forbidden(f, immutableMessage))
		}
	}
	return errs
}

// Forbidden is field.Forbidden as an engine.FieldError, in kube-apiserver's words.
func Forbidden(path, message string) engine.FieldError {
	e := field.Forbidden(field.NewPath(path), message)
	return engine.FieldError{Type: engine.CauseForbidden, Path: path, Message: e.ErrorBody()}
}
