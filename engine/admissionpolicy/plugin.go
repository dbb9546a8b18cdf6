package admissionpolicy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admission"
)

// Plugins are the ValidatingAdmissionPolicy and MutatingAdmissionPolicy
// admission plug-ins over one published Set.
type Plugins struct {
	store Store
	set   atomic.Pointer[Set]
}

// NewPlugins returns plug-ins that read through store, with no policy
// until Publish.
func NewPlugins(store Store) *Plugins { return &Plugins{store: store} }

// Publish makes s the policies of every later write.
func (p *Plugins) Publish(s *Set) { p.set.Store(s) }

// Validating is the ValidatingAdmissionPolicy plug-in.
func (p *Plugins) Validating() admission.Validator { return validatingPlugin{p} }

type validatingPlugin struct{ p *Plugins }

// Active reports whether any validating policy is published.
func (v validatingPlugin) Active() bool {
	s := v.p.set.Load()
	return s != nil && len(s.static.validating)+len(s.api.validating) > 0
}

// Validate runs the validating policies over a. Errors: kube's denial,
// as an *engine.Error.
func (v validatingPlugin) Validate(ctx context.Context, a *admission.Attributes, out *admission.Outcome) error {
	k, err := a.Kube()
	if err != nil {
		return err
	}
	res, err := v.p.set.Load().Validate(ctx, k, attributesEnv{v.p.store, a})
	out.Warn(res.Warnings...)
	out.Annotate(res.Annotations)
	return engineError(err)
}

// Mutating is the MutatingAdmissionPolicy plug-in.
func (p *Plugins) Mutating() admission.Mutator { return mutatingPlugin{p} }

type mutatingPlugin struct{ p *Plugins }

// Active reports whether any mutating policy is published.
func (m mutatingPlugin) Active() bool {
	s := m.p.set.Load()
	return s != nil && len(s.static.mutating)+len(s.api.mutating) > 0
}

// Admit runs the mutating policies over a and sets the object they made.
// Errors: kube's denial, as an *engine.Error.
func (m mutatingPlugin) Admit(ctx context.Context, a *admission.Attributes, _ *admission.Outcome) error {
	k, err := a.Kube()
	if err != nil {
		return err
	}
	obj, err := m.p.set.Load().Mutate(ctx, k, attributesEnv{m.p.store, a})
	if err != nil || obj == nil {
		return engineError(err)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encode mutated object: %w", err)
	}
	a.SetObject(b)
	return nil
}

// attributesEnv is Store with the request's conversion.
type attributesEnv struct {
	Store
	a *admission.Attributes
}

func (e attributesEnv) Convert(obj runtime.Object, gvk schema.GroupVersionKind) (runtime.Object, error) {
	if e.a.Convert == nil {
		return nil, fmt.Errorf("%s has no other version to convert to", e.a.Kind.Kind)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	b, err = e.a.Convert(b, obj.GetObjectKind().GroupVersionKind().Version, gvk.Version)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return u, nil
}

// engineError translates kube's StatusError into dynapi's, which the HTTP
// layer renders as the same Status.
func engineError(err error) error {
	var se *apierrors.StatusError
	if err == nil || !errors.As(err, &se) {
		return err
	}
	st := se.ErrStatus
	out := &engine.Error{Code: engine.Code(st.Reason), Message: st.Message}
	if st.Details != nil {
		out.Group, out.Kind, out.Name = st.Details.Group, st.Details.Kind, st.Details.Name
		for _, c := range st.Details.Causes {
			out.Causes = append(out.Causes, engine.FieldError{Type: string(c.Type), Path: c.Field, Message: c.Message})
		}
	}
	return out
}
