package cel

import (
	"context"
	"fmt"

	apiextensionscel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
)

// Validate returns every problem of obj, as kube-apiserver finds them
// after the OpenAPI schema: embedded resources' apiVersion, kind and
// metadata, duplicates in set and map lists, and the
// x-kubernetes-validations rules, in kube-apiserver's words and with the
// field path. obj is JSON, pruned, defaulted and valid against the schema.
// old is the object an update replaces (nil on create): transition rules
// (those that use oldSelf) run on update only, and a rule failing on a
// value the update leaves unchanged does not count (ratcheting). The rules
// of one call share Kubernetes' runtime cost budget; past it, the object is
// refused. A nil Validator finds nothing. Errors: an object that is not
// JSON.
func (v *Validator) Validate(ctx context.Context, obj, old []byte) ([]engine.FieldError, error) {
	if v == nil {
		return nil, nil
	}
	newObj, err := decode(obj)
	if err != nil {
		return nil, err
	}
	var oldObj map[string]any
	if old != nil {
		if oldObj, err = decode(old); err != nil {
			return nil, err
		}
	}
	errs := v.structure(ctx, newObj, oldObj)
	if v.rules != nil {
		errs = append(errs, v.evaluate(ctx, newObj, oldObj, errs)...)
	}
	return meta.FieldErrors(errs), nil
}

// structure checks embedded resources and list types. A list check is
// skipped on update when old already broke it, as in kube-apiserver.
func (v *Validator) structure(ctx context.Context, obj, old map[string]any) field.ErrorList {
	var errs field.ErrorList
	if v.embeds {
		errs = append(errs, objectmeta.Validate(ctx, nil, obj, v.schema, false)...)
	}
	if v.lists && (old == nil || len(listtype.ValidateListSetsAndMaps(nil, v.schema, old)) == 0) {
		errs = append(errs, listtype.ValidateListSetsAndMaps(nil, v.schema, obj)...)
	}
	return errs
}

// evaluate runs the rules, unless errs has a problem that makes them
// meaningless, as kube-apiserver does.
func (v *Validator) evaluate(ctx context.Context, obj, old map[string]any, errs field.ErrorList) field.ErrorList {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.ErrorList{field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")}
		}
	}
	var oldArg any // a nil interface: a typed nil map would count as an old object
	var opts []apiextensionscel.Option
	if old != nil {
		oldArg = old
		opts = append(opts, apiextensionscel.WithRatcheting(common.NewCorrelatedObject(obj, old, &model.Structural{Structural: v.schema})))
	}
	out, _ := v.rules.Validate(ctx, nil, v.schema, obj, oldArg, celconfig.RuntimeCELCostBudget, opts...)
	return out
}

// decode decodes a JSON object as Kubernetes' unstructured objects hold
// it: integers as int64, other numbers as float64.
func decode(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := utiljson.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	return m, nil
}
