package resource

import (
	"context"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// Namespaces are declared by a definition file like every kind, but their
// lifecycle is the server's: they get a phase and a name label on create,
// some may never be deleted, and deleting one deletes what is in it.

// namespaceNameLabel is set on every namespace, as kube-apiserver does, so
// that selectors can pick namespaces by name.
const namespaceNameLabel = "kubernetes.io/metadata.name"

// protectedNamespaces may not be deleted.
var protectedNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

func isNamespaces(t Target) bool { return IsNamespaces(t.Resource) }

// IsNamespaces reports whether res is the core Namespace kind, whose
// lifecycle is the server's (and which alone has a finalize subresource).
func IsNamespaces(res *registry.Resource) bool { return res.GroupResource() == engine.Namespaces }

func prepareNamespaceMeta(m *metav1.ObjectMeta) {
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[namespaceNameLabel] = m.Name
}

// namespaceFinalizer is the spec.finalizers value every namespace gets on
// create, as in Kubernetes: FinalizeNamespaces removes it once the
// namespace is empty. Other values are removed by whoever put them there,
// through the namespace's finalize subresource.
const namespaceFinalizer = "kubernetes"

// prepareNamespaceBody makes a new namespace Active, with the kubernetes
// finalizer in spec.finalizers.
func prepareNamespaceBody(obj []byte) ([]byte, error) {
	out, err := sjson.SetBytes(obj, "status", map[string]string{"phase": "Active"})
	if err == nil && fits(obj, "spec", gjson.Result.IsObject) && fits(obj, "spec.finalizers", gjson.Result.IsArray) &&
		!slices.Contains(specFinalizers(obj), namespaceFinalizer) {
		out, err = sjson.SetBytes(out, "spec.finalizers.-1", namespaceFinalizer)
	}
	if err != nil {
		return nil, fmt.Errorf("prepare namespace: %w", err)
	}
	return out, nil
}

// fits reports whether the value at path is missing, null or of the kind
// is checks: one that is not is left for the schema to report as sent.
func fits(obj []byte, path string, is func(gjson.Result) bool) bool {
	v := gjson.GetBytes(obj, path)
	return !v.Exists() || v.Type == gjson.Null || is(v)
}

// specFinalizers returns a namespace's spec.finalizers.
func specFinalizers(obj []byte) []string {
	var out []string
	for _, f := range gjson.GetBytes(obj, "spec.finalizers").Array() {
		out = append(out, f.String())
	}
	return out
}

// Finalize replaces a namespace's spec.finalizers with body's: the rest of
// body is ignored, but for its resourceVersion, if any, as for
// kube-apiserver's namespaces/finalize (PUT). A namespace marked for
// deletion that is left with no finalizers at all is deleted at once,
// whatever it still holds, as in Kubernetes: that is the way out for a
// namespace stuck on a finalizer nobody removes.
// Errors: as Update, and NotFound for any other resource.
func (s *Service) Finalize(ctx context.Context, t Target, name string, body []byte, opts WriteOptions) (Result, error) {
	if !isNamespaces(t) {
		return Result{}, engine.NewNotFound(engine.GroupResource{Group: t.Resource.Group, Resource: t.Resource.Plural + "/finalize"}, name)
	}
	old, err := s.Store.Get(ctx, t.key(name))
	if err != nil {
		return Result{}, err
	}
	oldObj, err := fromStorage(t, old)
	if err != nil {
		return Result{}, err
	}
	merged, err := copyField(oldObj, body, "spec.finalizers")
	if err == nil && gjson.GetBytes(body, "metadata.resourceVersion").Exists() {
		// Without one, the update is unconditional, as Kubernetes allows
		// for namespaces.
		merged, err = copyField(merged, body, "metadata.resourceVersion")
	}
	if err != nil {
		return Result{}, err
	}
	opts.finalize = true
	return s.update(ctx, t, old, merged, false, opts)
}

// hasFinalizers reports whether a stored object still has finalizers.
func hasFinalizers(obj []byte) bool {
	return len(gjson.GetBytes(obj, "metadata.finalizers").Array()) > 0
}

// EnsureNamespace creates namespace name unless it exists, as kube-apiserver
// does for "default" at start. Errors: NotFound when snap has no core
// Namespace kind; those of Create.
func (s *Service) EnsureNamespace(ctx context.Context, snap *registry.Snapshot, name string) error {
	res, ver, ok := snap.Lookup("", "v1", engine.Namespaces.Resource)
	if !ok {
		return engine.Errorf(engine.CodeNotFound, "no Namespace kind (core group, v1) is defined")
	}
	body, err := sjson.SetBytes([]byte(`{"apiVersion":"v1","kind":"Namespace"}`), "metadata.name", name)
	if err != nil {
		return fmt.Errorf("build namespace %s: %w", name, err)
	}
	_, err = s.Create(ctx, Target{Resource: res, Version: ver}, body, WriteOptions{})
	if engine.ErrorCode(err) == engine.CodeAlreadyExists {
		return nil
	}
	return err
}
