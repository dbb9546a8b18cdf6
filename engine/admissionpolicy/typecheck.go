package admissionpolicy

import (
	"encoding/json"
	"fmt"

	"k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Schemas are the served kinds the type checker checks expressions
// against: dynapi's built-in and custom kinds of one snapshot.
type Schemas interface {
	// Schema returns the OpenAPI v3 schema of gvk's kind as JSON, $refs
	// resolved; false when gvk is not served.
	Schema(gvk schema.GroupVersionKind) ([]byte, bool)
	// Kind returns the kind gvr serves; false when gvr is not served.
	Kind(gvr schema.GroupVersionResource) (schema.GroupVersionKind, bool)
}

// TypeCheck returns kube's type checking warnings of p's validations and
// message expressions against the kinds its matchConstraints name (and
// its paramKind), as kube's validatingadmissionpolicy-status controller
// writes them in status.typeChecking.expressionWarnings; nil for none.
// Kinds not served are not checked, as in kube.
func TypeCheck(p *v1.ValidatingAdmissionPolicy, s Schemas) []v1.ExpressionWarning {
	tc := &validating.TypeChecker{SchemaResolver: schemaResolver{s}, RestMapper: restMapper{s: s}}
	return tc.Check(p)
}

// schemaResolver is kube's SchemaResolver over Schemas.
type schemaResolver struct{ s Schemas }

func (r schemaResolver) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	b, ok := r.s.Schema(gvk)
	if !ok {
		return nil, fmt.Errorf("%v: %w", gvk, resolver.ErrSchemaNotFound)
	}
	out := &spec.Schema{}
	if err := json.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("decode schema of %v: %w", gvk, err)
	}
	return out, nil
}

// restMapper is the part of kube's RESTMapper the type checker calls:
// KindsFor, of one resource (no wildcards: the checker skips rules with
// them).
type restMapper struct {
	meta.RESTMapper // never called: only KindsFor is
	s               Schemas
}

func (m restMapper) KindsFor(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	gvk, ok := m.s.Kind(gvr)
	if !ok {
		return nil, &meta.NoResourceMatchError{PartialResource: gvr}
	}
	return []schema.GroupVersionKind{gvk}, nil
}
