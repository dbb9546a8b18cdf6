package controlplane

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admissionpolicy"
	"github.com/dynapi/dynapi/engine/apply"
	"github.com/dynapi/dynapi/engine/authz"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/selector"
)

// policyStore is what admission policies read: namespaces and params
// from the store (always current: a param created just before a write is
// seen by it), the kinds and versions of the current snapshot, and the
// server's authorizer.
type policyStore struct {
	service   *resource.Service
	snapshots interface{ Load() *registry.Snapshot }
	authz     authorizer.UnconditionalAuthorizer
}

var _ admissionpolicy.Store = (*policyStore)(nil)

func newPolicyStore(service *resource.Service, snapshots interface{ Load() *registry.Snapshot }, a authz.Authorizer) *policyStore {
	return &policyStore{service: service, snapshots: snapshots, authz: admissionpolicy.NewAuthorizer(a)}
}

func (s *policyStore) Namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	t, err := s.target("", "v1", "namespaces", "")
	if err != nil {
		return nil, err
	}
	b, err := s.service.Get(ctx, t, name)
	if err != nil {
		return nil, kubeError(err, schema.GroupResource{Resource: "namespaces"}, name)
	}
	ns := &corev1.Namespace{}
	return ns, json.Unmarshal(b, ns)
}

func (s *policyStore) ParamScope(kind *v1.ParamKind) (bool, error) {
	res, _, err := s.paramResource(kind)
	if err != nil {
		return false, err
	}
	return res.Namespaced, nil
}

func (s *policyStore) Param(ctx context.Context, kind *v1.ParamKind, namespace, name string) (runtime.Object, error) {
	res, ver, err := s.paramResource(kind)
	if err != nil {
		return nil, err
	}
	b, err := s.service.Get(ctx, resource.Target{Resource: res, Version: ver, Namespace: namespace}, name)
	if err != nil {
		return nil, kubeError(err, schema.GroupResource{Group: res.Group, Resource: res.Plural}, name)
	}
	return unstructuredOf(b)
}

func (s *policyStore) Params(ctx context.Context, kind *v1.ParamKind, namespace string, sel labels.Selector) ([]runtime.Object, error) {
	res, ver, err := s.paramResource(kind)
	if err != nil {
		return nil, err
	}
	reqs, err := selector.ParseLabels(sel.String())
	if err != nil {
		return nil, err
	}
	var out []runtime.Object
	opts := engine.ListOptions{Namespace: namespace, Labels: reqs}
	_, err = s.service.List(ctx, resource.Target{Resource: res, Version: ver, Namespace: namespace}, opts, func(b []byte) error {
		u, err := unstructuredOf(b)
		out = append(out, u)
		return err
	})
	return out, err
}

func (s *policyStore) Fields(gvk schema.GroupVersionKind) (*apply.Kind, error) {
	res, ok := s.snapshots.Load().ResourceByKind(gvk.Group, gvk.Kind)
	if !ok || res.Fields == nil {
		return nil, fmt.Errorf("%v is not served", gvk)
	}
	return res.Fields, nil
}

func (s *policyStore) Mapper() runtime.EquivalentResourceMapper { return mapper{s.snapshots.Load()} }

func (s *policyStore) Authorizer() authorizer.UnconditionalAuthorizer { return s.authz }

// paramResource is the served resource and version of a paramKind.
func (s *policyStore) paramResource(kind *v1.ParamKind) (*registry.Resource, *registry.Version, error) {
	gv, err := schema.ParseGroupVersion(kind.APIVersion)
	if err != nil {
		return nil, nil, err
	}
	snap := s.snapshots.Load()
	res, ok := snap.ResourceByKind(gv.Group, kind.Kind)
	if !ok {
		return nil, nil, fmt.Errorf("paramKind kind `%v` not known", kind.String())
	}
	_, ver, ok := snap.Lookup(gv.Group, gv.Version, res.Plural)
	if !ok {
		return nil, nil, fmt.Errorf("paramKind kind `%v` not known", kind.String())
	}
	return res, ver, nil
}

func (s *policyStore) target(group, version, plural, namespace string) (resource.Target, error) {
	res, ver, ok := s.snapshots.Load().Lookup(group, version, plural)
	if !ok {
		return resource.Target{}, apierrors.NewNotFound(schema.GroupResource{Group: group, Resource: plural}, "")
	}
	return resource.Target{Resource: res, Version: ver, Namespace: namespace}, nil
}

// mapper is kube's EquivalentResourceMapper over a snapshot: the served
// versions of one resource hold the same objects.
type mapper struct{ snap *registry.Snapshot }

func (m mapper) EquivalentResourcesFor(gvr schema.GroupVersionResource, _ string) []schema.GroupVersionResource {
	res, _, ok := m.snap.Lookup(gvr.Group, gvr.Version, gvr.Resource)
	if !ok {
		return nil
	}
	var out []schema.GroupVersionResource
	for _, v := range res.Versions {
		if v.Served {
			out = append(out, schema.GroupVersionResource{Group: res.Group, Version: v.Name, Resource: res.Plural})
		}
	}
	return out
}

func (m mapper) KindFor(gvr schema.GroupVersionResource, subresource string) schema.GroupVersionKind {
	if subresource == "scale" {
		return schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	}
	res, _, ok := m.snap.Lookup(gvr.Group, gvr.Version, gvr.Resource)
	if !ok {
		return schema.GroupVersionKind{}
	}
	return schema.GroupVersionKind{Group: res.Group, Version: gvr.Version, Kind: res.Kind}
}

// kubeError is err as kube's: NotFound for a missing object, which
// params and namespaceSelector treat apart.
func kubeError(err error, gr schema.GroupResource, name string) error {
	if engine.ErrorCode(err) == engine.CodeNotFound {
		return apierrors.NewNotFound(gr, name)
	}
	return err
}

func unstructuredOf(b []byte) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	return u, u.UnmarshalJSON(b)
}
