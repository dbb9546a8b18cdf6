// Package meta reads, validates and writes an object's metadata the way
// kube-apiserver does for every kind. It decodes only metadata (small) into
// metav1.ObjectMeta so that Kubernetes' own validation rules and messages
// apply; the rest of the object stays as bytes.
package meta

import (
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
)

// Parse decodes obj's metadata. Fields ObjectMeta does not know are dropped,
// as kube-apiserver drops them, and so are managedFields: they are read
// and written as JSON by the write pipeline's managedFields stage, which
// decides them on every write; decoding them into ObjectMeta (times,
// field sets) and encoding them back cost every write a third of its
// metadata work for nothing. Errors: BadRequest for metadata of the
// wrong shape.
func Parse(obj []byte) (*metav1.ObjectMeta, error) {
	m := &withoutManagedFields{}
	raw := gjson.Get(jsonscan.View(obj), "metadata") // shares obj's bytes: blankManagedFields copies
	if !raw.Exists() || raw.Type == gjson.Null {
		return &m.ObjectMeta, nil
	}
	if !raw.IsObject() {
		return nil, engine.Errorf(engine.CodeBadRequest, "metadata must be an object")
	}
	if fast, ok := parseFast(raw); ok {
		return fast, nil
	}
	if err := json.Unmarshal(blankManagedFields(raw.Raw), m); err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "unable to decode metadata: %v", err)
	}
	return &m.ObjectMeta, nil
}

// blankManagedFields is metadata's JSON with the value of managedFields
// replaced by null: encoding/json would otherwise scan those bytes twice
// (its validity check, then the skip) on every write, and they are often
// a third of metadata. skipped takes any other managedFields member.
func blankManagedFields(metadata string) []byte {
	mf := gjson.Get(metadata, "managedFields")
	if !mf.Exists() || mf.Index <= 0 {
		return []byte(metadata)
	}
	out := make([]byte, 0, len(metadata)-len(mf.Raw)+4)
	out = append(out, metadata[:mf.Index]...)
	out = append(out, "null"...)
	return append(out, metadata[mf.Index+len(mf.Raw):]...)
}

// withoutManagedFields decodes ObjectMeta but its managedFields, which
// the outer field, shallower, takes instead, and skips.
type withoutManagedFields struct {
	metav1.ObjectMeta
	ManagedFields skipped `json:"managedFields"`
}

// skipped is a JSON value that is not decoded.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// Set writes m as obj's metadata, encoded as encoding/json encodes it.
func Set(obj []byte, m *metav1.ObjectMeta) ([]byte, error) {
	raw, ok := appendFast(make([]byte, 0, 512), m)
	if !ok {
		var err error
		if raw, err = json.Marshal(m); err != nil {
			return nil, fmt.Errorf("encode metadata: %w", err)
		}
	}
	out, err := sjson.SetRawBytes(obj, "metadata", raw)
	if err != nil {
		return nil, fmt.Errorf("set metadata: %w", err)
	}
	return out, nil
}

// NameRule validates object names: namespaces need a DNS label, every other
// kind a DNS subdomain, as kube-apiserver requires for custom resources.
func NameRule(isNamespace bool) apivalidation.ValidateNameFunc {
	if isNamespace {
		return apivalidation.ValidateNamespaceName
	}
	return apivalidation.NameIsDNSSubdomain
}

// ValidateCreate checks metadata of an object about to be created.
func ValidateCreate(m *metav1.ObjectMeta, namespaced bool, name apivalidation.ValidateNameFunc) []engine.FieldError {
	return FieldErrors(validateObjectMeta(m, namespaced, name))
}

// ValidateUpdate checks metadata of an object replacing old: immutable
// fields, no new finalizers on an object being deleted, and the create rules.
func ValidateUpdate(m, old *metav1.ObjectMeta, namespaced bool, name apivalidation.ValidateNameFunc) []engine.FieldError {
	m = withoutPlain(m)
	errs := apivalidation.ValidateObjectMeta(m, namespaced, name, field.NewPath("metadata"))
	errs = append(errs, apivalidation.ValidateObjectMetaUpdate(m, old, field.NewPath("metadata"))...)
	return FieldErrors(errs)
}

// validateObjectMeta is Kubernetes' ValidateObjectMeta over withoutPlain(m).
func validateObjectMeta(m *metav1.ObjectMeta, namespaced bool, name apivalidation.ValidateNameFunc) field.ErrorList {
	return apivalidation.ValidateObjectMeta(withoutPlain(m), namespaced, name, field.NewPath("metadata"))
}

// withoutPlain is m without its labels when plainLabels finds them valid,
// and without its annotations when plainAnnotations does: Kubernetes'
// checks of them (regular expressions, run twice on an update: by
// ValidateObjectMeta and again by ValidateObjectMetaUpdate) would find
// nothing. Why: those expressions took 15,500 of a PUT's 746,000
// instructions (callgrind) for a Widget with three labels. The other
// fields are Kubernetes' to check, unchanged.
func withoutPlain(m *metav1.ObjectMeta) *metav1.ObjectMeta {
	dropLabels := len(m.Labels) > 0 && plainLabels(m.Labels)
	dropAnnotations := len(m.Annotations) > 0 && plainAnnotations(m.Annotations)
	if !dropLabels && !dropAnnotations {
		return m
	}
	c := *m
	if dropLabels {
		c.Labels = nil
	}
	if dropAnnotations {
		c.Annotations = nil
	}
	return &c
}

// FieldErrors turns Kubernetes' field errors into causes, worded as
// kube-apiserver's StatusCauses are: the one conversion, for every
// package that validates with Kubernetes' libraries. No errors is nil, so
// that a valid write allocates nothing here.
func FieldErrors(errs field.ErrorList) []engine.FieldError {
	if len(errs) == 0 {
		return nil
	}
	out := make([]engine.FieldError, len(errs))
	for i, e := range errs {
		out[i] = engine.FieldError{Type: string(e.Type), Path: e.Field, Message: e.ErrorBody()}
	}
	return out
}
