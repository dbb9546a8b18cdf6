// Package builtin holds the definitions of the kinds every Kubernetes tool
// expects a server to have (kcp's "generic control plane"): core/v1
// Namespace, ConfigMap, Secret, ServiceAccount, Event;
// coordination.k8s.io/v1 Lease; events.k8s.io/v1 Event;
// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding,
// ClusterRoleBinding; apiextensions.k8s.io/v1 CustomResourceDefinition;
// admissionregistration.k8s.io/v1's webhook configurations and admission
// policies with their bindings; storagemigration.k8s.io/v1
// StorageVersionMigration; apiregistration.k8s.io/v1 APIService; and
// dynapi's own dynapi.dev/v1alpha1 ConversionRules.
//
// They are definition files in the native format, embedded in the binary:
// package registry loads them before any definition file, whatever folder
// the server is given, so that their names cannot be taken; only
// --runtime-config switches them off. The schemas of all but Namespace,
// CustomResourceDefinition and ConversionRules (dynapi's own) are
// generated from Kubernetes' published OpenAPI by ./gen (go generate). What the server does for a kind beyond
// its schema is that kind's strategy, in the kind's own package.
//
// The package imports nothing of the engine, so that the registry can.
package builtin

import (
	"embed"
	"io/fs"
)

//go:generate go run ./gen -out definitions -version v1.37.0

// KubernetesVersion is the Kubernetes release whose OpenAPI the built-in
// definitions were generated from (go:generate's -version): the release
// whose API the server serves, which /version reports.
const KubernetesVersion = "v1.37.0"

//go:embed definitions/*/*.yaml
var files embed.FS

// FS holds the definition files, one folder per group ("core" for the
// core group), as a folder of definitions given to registry.Load would.
var FS fs.FS = mustSub(files, "definitions")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // dir is a constant that go:embed checked
	}
	return sub
}
