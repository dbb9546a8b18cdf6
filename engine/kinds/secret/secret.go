// Package secret is the Secret kind's strategy, kube-apiserver's:
// stringData is merged into data (base64) on every write and never stored;
// type defaults to Opaque and cannot change; data values must be base64;
// `immutable: true` freezes data, as for ConfigMaps.
package secret

import (
	"encoding/base64"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kinds/configmap"
	"github.com/dynapi/dynapi/engine/resource"
)

// Resource is the resource the Strategy serves.
var Resource = engine.GroupResource{Resource: "secrets"}

// Strategy is the Secret kind's strategy.
type Strategy struct{ resource.CustomResource }

var _ resource.Strategy = Strategy{}

// Register makes service serve secrets with their Strategy.
func Register(service *resource.Service) { service.Register(Resource, Strategy{}) }

// AllowUnconditionalUpdate is true, as for kube-apiserver's Secrets.
func (Strategy) AllowUnconditionalUpdate() bool { return true }

// PrepareForCreate merges stringData and defaults type to Opaque.
// Errors: BadRequest for a data value that is not base64.
func (Strategy) PrepareForCreate(w *resource.Write) error {
	if gjson.GetBytes(w.Object, "type").String() == "" {
		out, err := sjson.SetBytes(w.Object, "type", "Opaque")
		if err != nil {
			return fmt.Errorf("default secret type: %w", err)
		}
		w.Object = out
	}
	return mergeStringData(w)
}

// PrepareForUpdate merges stringData; an absent type is the stored one.
// Errors: BadRequest for a data value that is not base64.
func (Strategy) PrepareForUpdate(w *resource.Write) error {
	if !gjson.GetBytes(w.Object, "type").Exists() {
		if err := w.Keep("type"); err != nil {
			return err
		}
	}
	return mergeStringData(w)
}

// mergeStringData checks that data's values are base64 (kube-apiserver
// fails to decode such a body: 400), then moves every stringData entry
// into data, encoded, over any value data has for its key.
func mergeStringData(w *resource.Write) error {
	var bad error
	gjson.GetBytes(w.Object, "data").ForEach(func(k, v gjson.Result) bool {
		if _, err := base64.StdEncoding.DecodeString(v.String()); v.Type == gjson.String && err != nil {
			bad = engine.Errorf(engine.CodeBadRequest, "Secret in version \"v1\" cannot be handled as a Secret: data[%s]: %v", k.String(), err)
		}
		return bad == nil
	})
	if bad != nil {
		return bad
	}
	out := w.Object
	var err error
	gjson.GetBytes(w.Object, "stringData").ForEach(func(k, v gjson.Result) bool {
		out, err = sjson.SetBytes(out, "data."+gjson.Escape(k.String()), base64.StdEncoding.EncodeToString([]byte(v.String())))
		return err == nil
	})
	if err != nil {
		return fmt.Errorf("merge stringData: %w", err)
	}
	w.Object = out
	return w.Drop("stringData")
}

// Validate checks data's keys, keeps type and, once immutable, data.
func (Strategy) Validate(w *resource.Write) ([]engine.FieldError, []string) {
	var errs []engine.FieldError
	gjson.GetBytes(w.Object, "data").ForEach(func(k, _ gjson.Result) bool {
		for _, msg := range validation.IsConfigMapKey(k.String()) {
			path := field.NewPath("data").Key(k.String())
			errs = append(errs, engine.FieldError{Type: engine.CauseInvalid, Path: path.String(),
				Message: field.Invalid(path, k.String(), msg).ErrorBody()})
		}
		return true
	})
	if w.Operation == resource.UpdateOperation && w.Changed("type") {
		path := field.NewPath("type")
		errs = append(errs, engine.FieldError{Type: engine.CauseInvalid, Path: "type",
			Message: field.Invalid(path, gjson.GetBytes(w.Object, "type").String(), "field is immutable").ErrorBody()})
	}
	errs = append(errs, configmap.Immutable(w, "data")...)
	return errs, nil
}
