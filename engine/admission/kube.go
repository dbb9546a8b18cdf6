package admission

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/json"
	kubeadmission "k8s.io/apiserver/pkg/admission"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/authentication/user"
)

// kubeAttributes is kube's admission.Attributes over a, for plug-ins built
// on kube's admission libraries: its objects are decoded once, and its
// reinvocation context is a's, so that kube's plug-ins and dynapi's share
// one second run.
type kubeAttributes struct {
	kubeadmission.Attributes
	reinvoke    *Reinvocation
	annotations map[string]string // a's kubeAnnotations
}

// AddAnnotation records an audit annotation for a's plug-in to take (see
// Attributes.KubeAnnotations); a key set before keeps its value, as in
// kube's record.
func (k *kubeAttributes) AddAnnotation(key, value string) error {
	if _, set := k.annotations[key]; !set {
		k.annotations[key] = value
	}
	return nil
}

// AddAnnotationWithLevel is AddAnnotation: dynapi's audit log records
// admission annotations at every level that records metadata.
func (k *kubeAttributes) AddAnnotationWithLevel(key, value string, _ auditinternal.Level) error {
	return k.AddAnnotation(key, value)
}

// GetReinvocationContext is a's reinvocation context.
func (k *kubeAttributes) GetReinvocationContext() kubeadmission.ReinvocationContext {
	return k.reinvoke
}

// Kube returns a as kube's admission.Attributes, with Object, OldObject
// and Options decoded into unstructured objects on the first call (the
// later calls share them: a mutating plug-in that changes the object
// through them must write it back with SetObject). Audit annotations
// added to it are kept for KubeAnnotations, which the plug-in copies into
// its Outcome. The
// plug-ins of a Chain run one after the other: Kube is not for
// concurrent use. Errors: an object that is not JSON.
func (a *Attributes) Kube() (kubeadmission.Attributes, error) {
	if a.kube != nil {
		return a.kube, nil
	}
	k, err := a.newKube()
	if err != nil {
		return nil, err
	}
	a.kube = k
	return k, nil
}

func (a *Attributes) newKube() (*kubeAttributes, error) {
	obj, err := unstructuredOf(a.Object)
	if err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	old, err := unstructuredOf(a.OldObject)
	if err != nil {
		return nil, fmt.Errorf("decode old object: %w", err)
	}
	opts, err := unstructuredOf(a.Options)
	if err != nil {
		return nil, fmt.Errorf("decode options: %w", err)
	}
	gvk := schema.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind}
	gvr := schema.GroupVersionResource{Group: a.Resource.Group, Version: a.Kind.Version, Resource: a.Resource.Resource}
	rec := kubeadmission.NewAttributesRecord(obj, old, gvk, a.Namespace, a.Name, gvr, a.Subresource,
		kubeadmission.Operation(a.Operation), opts, a.DryRun, userInfo(a))
	if a.kubeAnnotations == nil {
		a.kubeAnnotations = map[string]string{}
	}
	return &kubeAttributes{Attributes: rec, reinvoke: &a.reinvoke, annotations: a.kubeAnnotations}, nil
}

// KubeAnnotations are the audit annotations kube's libraries added through
// Kube's attributes (nil: none).
func (a *Attributes) KubeAnnotations() map[string]string { return a.kubeAnnotations }

// unstructuredOf decodes b, with integers as int64 as kube decodes
// them; nil for no object, as kube's attributes have
// for the object of a delete.
func unstructuredOf(b []byte) (runtime.Object, error) {
	if b == nil {
		return nil, nil
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(b, &u.Object); err != nil {
		return nil, err
	}
	return u, nil
}

// userInfo is a's user as kube's user.Info; nil without one.
func userInfo(a *Attributes) user.Info {
	if a.User == nil {
		return nil
	}
	return &user.DefaultInfo{Name: a.User.Name, UID: a.User.UID, Groups: a.User.Groups, Extra: a.User.Extra}
}
