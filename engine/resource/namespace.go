package resource

import (
	"context"
	"fmt"

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

// namespaces is the storage key of the core Namespace kind.
var namespaces = engine.GroupResource{Resource: "namespaces"}

func isNamespaces(t Target) bool { return t.GroupResource() == namespaces }

func prepareNamespaceMeta(m *metav1.ObjectMeta) {
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[namespaceNameLabel] = m.Name
}

func prepareNamespaceBody(obj []byte) ([]byte, error) {
	out, err := sjson.SetBytes(obj, "status.phase", "Active")
	if err != nil {
		return nil, fmt.Errorf("set namespace phase: %w", err)
	}
	return out, nil
}

// hasFinalizers reports whether a stored object still has finalizers.
func hasFinalizers(obj []byte) bool {
	return len(gjson.GetBytes(obj, "metadata.finalizers").Array()) > 0
}

// EnsureNamespace creates namespace name unless it exists, as kube-apiserver
// does for "default" at start. Errors: NotFound when snap has no core
// Namespace kind; those of Create.
func (s *Service) EnsureNamespace(ctx context.Context, snap *registry.Snapshot, name string) error {
	res, ver, ok := snap.Lookup("", "v1", namespaces.Resource)
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
