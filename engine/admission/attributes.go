package admission

import (
	"context"

	"github.com/dynapi/dynapi/engine"
)

// Operation is an admission request's operation, as kube's
// admission.Operation and AdmissionReview's request.operation spell it.
type Operation string

// The operations of admission. A patch and an apply are UPDATE (CREATE
// when an apply creates the object); CONNECT is not served by dynapi.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// Attributes are one admission request, decoded once from a write and
// shared by every plug-in that admits it.
//
// They are dynapi's own type rather than k8s.io/apiserver's
// admission.Attributes, because kube's holds runtime.Objects: decoding
// every write into an unstructured map (and encoding it back for each
// webhook) would cost every write with admission configured, on the hot
// path the pipeline keeps as bytes. Webhooks send Object and OldObject as
// they are. A plug-in built on kube's libraries (admission policies,
// which evaluate CEL over runtime.Objects) asks Kube for the adapter,
// which decodes the objects once per request, on first use.
type Attributes struct {
	Operation Operation
	// Kind is the request's kind, in the version it was sent in; Resource
	// its resource (plural), in that version too.
	Kind     engine.GroupVersionKind
	Resource engine.GroupResource
	// Subresource is "status", "scale" or "" (the object itself).
	Subresource string
	// StorageVersion is the version the resource is stored in.
	StorageVersion string
	Name           string
	Namespace      string
	// Object is the object written, in Kind's version (nil on delete);
	// mutating plug-ins replace it with SetObject. OldObject is the stored object in
	// Kind's version (nil on create). For the scale subresource both are
	// autoscaling/v1 Scales.
	Object, OldObject []byte
	// User is who writes; nil for the server's own work and without
	// authentication.
	User   *engine.User
	DryRun bool
	// Options is the operation's options object as kube sends it to
	// webhooks (meta.k8s.io/v1 CreateOptions, UpdateOptions or
	// DeleteOptions), JSON.
	Options []byte
	// Versions are the served versions of the resource; Convert converts
	// an object of it between two of them (matchPolicy Equivalent). Both
	// are nil when the resource has one version, and for the scale
	// subresource (a Scale is autoscaling/v1 in every version).
	Versions []string
	Convert  func(obj []byte, from, to string) ([]byte, error)
	// NamespaceLabels returns the labels of the namespace Namespace (for
	// a namespace's own write, of that namespace), read once per request.
	NamespaceLabels func(ctx context.Context) (map[string]string, error)

	reinvoke Reinvocation
	kube     *kubeAttributes // Kube's, once made
	// kubeAnnotations are what kube's libraries annotated through Kube.
	kubeAnnotations map[string]string
}

// SetObject replaces Object with obj (a mutating plug-in's result), and
// forgets the objects Kube decoded from the one before.
func (a *Attributes) SetObject(obj []byte) {
	a.Object, a.kube = obj, nil
}

// Reinvocation returns the reinvocation context of the request: the
// record of which plug-ins are to run again (see Chain.Admit).
func (a *Attributes) Reinvocation() *Reinvocation { return &a.reinvoke }

// Reinvocation is kube's admission.ReinvocationContext: whether the
// mutating plug-ins run a second time, and what each keeps between its
// runs.
type Reinvocation struct {
	is, should bool
	values     map[string]any
}

// IsReinvoke reports whether the plug-ins run for the second time.
func (r *Reinvocation) IsReinvoke() bool { return r.is }

// SetIsReinvoke marks the second run.
func (r *Reinvocation) SetIsReinvoke() { r.is = true }

// ShouldReinvoke reports whether a plug-in asked for a second run.
func (r *Reinvocation) ShouldReinvoke() bool { return r.should }

// SetShouldReinvoke asks for a second run: a plug-in with reinvocation
// policy IfNeeded saw a later plug-in change the object.
func (r *Reinvocation) SetShouldReinvoke() { r.should = true }

// SetValue keeps v for plugin until its second run.
func (r *Reinvocation) SetValue(plugin string, v any) {
	if r.values == nil {
		r.values = map[string]any{}
	}
	r.values[plugin] = v
}

// Value is what plugin kept (nil: nothing).
func (r *Reinvocation) Value(plugin string) any { return r.values[plugin] }

// InVersion returns a copy of a addressed to another version of its
// resource (its objects still a's, for the caller to convert), with no
// decoded objects; its reinvocation context is a copy: plug-ins record
// reinvocation on a's.
func (a *Attributes) InVersion(version string) *Attributes {
	c := *a
	c.Kind.Version, c.kube = version, nil
	return &c
}
