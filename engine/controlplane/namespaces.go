package controlplane

import (
	"context"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kinds/namespace"
	"github.com/dynapi/dynapi/engine/registry"
)

// ensureNamespaces creates the system namespaces unless they exist; a
// server with no Namespace kind (switched off) only says so.
func ensureNamespaces(ctx context.Context, cfg Config, snap *registry.Snapshot) error {
	for _, name := range namespace.System {
		err := namespace.Ensure(ctx, cfg.Service, snap, name)
		if engine.ErrorCode(err) == engine.CodeNotFound {
			cfg.Logger.Warn("namespaced kinds cannot be used", "reason", err)
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rootCADescription is the annotation kube's root CA publisher sets.
const rootCADescription = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints " +
	"such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."

// namespaceContents are the objects every namespace holds, as
// kube-controller-manager keeps them: the default ServiceAccount (its
// serviceaccounts-controller) and, when the server has a CA, the
// kube-root-ca.crt ConfigMap with it (its root-ca-cert-publisher), whose
// data is put back when changed.
func namespaceContents(rootCA []byte) []namespace.Content {
	contents := []namespace.Content{{Resource: "serviceaccounts", Name: "default", Body: []byte(`{"apiVersion":"v1","kind":"ServiceAccount"}`)}}
	if len(rootCA) == 0 {
		return contents
	}
	body, err := sjson.SetBytes([]byte(`{"apiVersion":"v1","kind":"ConfigMap"}`), "data", map[string]string{"ca.crt": string(rootCA)})
	if err == nil {
		body, err = sjson.SetBytes(body, `metadata.annotations.kubernetes\.io/description`, rootCADescription)
	}
	if err != nil {
		panic(err) // sjson cannot fail to set these paths on this object
	}
	return append(contents, namespace.Content{Resource: "configmaps", Name: "kube-root-ca.crt", Body: body, Keep: []string{"data"}})
}
