package admissionpolicy

import (
	"context"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/dynapi/dynapi/engine/apply"
)

// Env is what evaluation reads beyond the request: Store's, and the
// conversion of the request's objects into another version of their
// kind (for matchPolicy Equivalent).
type Env interface {
	Store
	// Convert returns obj (an *unstructured.Unstructured) converted to gvk.
	Convert(obj runtime.Object, gvk schema.GroupVersionKind) (runtime.Object, error)
}

// Store reads namespaces, params, the versions of a resource, and answers
// CEL's `authorizer`. Its errors are kube's (apierrors), as CEL and
// messages quote them.
type Store interface {
	// Namespace returns the namespace named; kube's NotFound when absent.
	Namespace(ctx context.Context, name string) (*corev1.Namespace, error)
	// ParamScope says whether kind names a namespaced resource; an error
	// when kind is not served.
	ParamScope(kind *v1.ParamKind) (namespaced bool, err error)
	// Param returns one object of kind; kube's NotFound when absent.
	Param(ctx context.Context, kind *v1.ParamKind, namespace, name string) (runtime.Object, error)
	// Params lists the objects of kind in namespace ("" for all, or
	// cluster-scoped) that selector selects.
	Params(ctx context.Context, kind *v1.ParamKind, namespace string, selector labels.Selector) ([]runtime.Object, error)
	// Mapper tells the resources that hold the same objects as another
	// one (its other versions), for matchPolicy Equivalent.
	Mapper() runtime.EquivalentResourceMapper
	// Fields returns the field types of gvk's kind (ApplyConfiguration
	// merges with them); an error when gvk is not served.
	Fields(gvk schema.GroupVersionKind) (*apply.Kind, error)
	// Authorizer answers CEL's authorizer checks.
	Authorizer() authorizer.UnconditionalAuthorizer
}

// request holds one admission request's view of Env, as kube's
// informers and clients give it to its plug-ins.
type request struct {
	ctx       context.Context
	env       Env
	attrs     admission.Attributes
	matcher   generic.PolicyMatcher
	ns        *corev1.Namespace // namespaceObject's, once read
	nsRead    bool
	versioned map[schema.GroupVersionKind]*admission.VersionedAttributes // see versionedAttributes
}

func newRequest(ctx context.Context, env Env, a admission.Attributes) *request {
	r := &request{ctx: ctx, env: env, attrs: a, versioned: map[schema.GroupVersionKind]*admission.VersionedAttributes{}}
	m := matching.NewMatcher(namespaceLister{r}, namespaceClient{r: r})
	r.matcher = generic.NewPolicyMatcher(m)
	return r
}

// versionedAttributes are the request's attributes in kind, converted once
// per request and kind, as kube's dispatchers keep them.
func (r *request) versionedAttributes(kind schema.GroupVersionKind) (*admission.VersionedAttributes, error) {
	if va := r.versioned[kind]; va != nil {
		return va, nil
	}
	va, err := admission.NewVersionedAttributes(r.attrs, kind, r.objectInterfaces())
	if err != nil {
		return nil, err
	}
	r.versioned[kind] = va
	return va, nil
}

// namespaceObject is the namespace CEL's namespaceObject binds: none
// for cluster-scoped objects, nor for a Namespace itself (kube's special
// case). It is read once per request.
func (r *request) namespaceObject(a admission.Attributes) (*corev1.Namespace, error) {
	if r.nsRead {
		return r.ns, nil
	}
	name := a.GetNamespace()
	if gvk := a.GetKind(); gvk.Group == "" && gvk.Version == "v1" && gvk.Kind == "Namespace" {
		name = ""
	}
	if name != "" {
		ns, err := r.env.Namespace(r.ctx, name)
		if err != nil {
			return nil, err
		}
		r.ns = ns
	}
	r.nsRead = true
	return r.ns, nil
}

// objectInterfaces is admission.ObjectInterfaces over Env, for kube's
// matching (equivalent resources) and versioned attributes (conversion).
func (r *request) objectInterfaces() admission.ObjectInterfaces { return objectInterfaces{r} }

type objectInterfaces struct{ r *request }

func (o objectInterfaces) GetObjectCreater() runtime.ObjectCreater     { return creater{} }
func (o objectInterfaces) GetObjectTyper() runtime.ObjectTyper         { return typer{} }
func (o objectInterfaces) GetObjectDefaulter() runtime.ObjectDefaulter { return nopDefaulter{} }
func (o objectInterfaces) GetObjectConvertor() runtime.ObjectConvertor { return convertor{o.r.env} }
func (o objectInterfaces) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return o.r.env.Mapper()
}

// namespaceLister reads namespaces from Env, always current: kube's
// informer cache with its fallback to a live read folded into one.
type namespaceLister struct{ r *request }

func (l namespaceLister) List(labels.Selector) ([]*corev1.Namespace, error) {
	return nil, errNotListed
}

func (l namespaceLister) Get(name string) (*corev1.Namespace, error) {
	return l.r.env.Namespace(l.r.ctx, name)
}

var _ corelisters.NamespaceLister = namespaceLister{}

// namespaceClient is the live read kube's matcher falls back to when its
// cache misses a namespace: the same read as namespaceLister's. Only
// CoreV1().Namespaces().Get is ever called.
type namespaceClient struct {
	kubernetes.Interface
	r *request
}

func (c namespaceClient) CoreV1() corev1client.CoreV1Interface { return namespaceCore{r: c.r} }

type namespaceCore struct {
	corev1client.CoreV1Interface
	r *request
}

func (c namespaceCore) Namespaces() corev1client.NamespaceInterface {
	return namespaceGetter{r: c.r}
}

type namespaceGetter struct {
	corev1client.NamespaceInterface
	r *request
}

func (g namespaceGetter) Get(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	return g.r.env.Namespace(ctx, name)
}
