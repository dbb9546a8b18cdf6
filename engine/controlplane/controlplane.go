// Package controlplane registers the strategies of the built-in kinds
// (package builtin holds their definitions) with a resource.Service: the
// one place cmd/dynapi and the tests wire them, so that both serve the
// same rules. CustomResourceDefinitions register theirs with crd.New.
package controlplane

import (
	"github.com/dynapi/dynapi/engine/kinds/configmap"
	"github.com/dynapi/dynapi/engine/kinds/namespace"
	"github.com/dynapi/dynapi/engine/kinds/roles"
	"github.com/dynapi/dynapi/engine/kinds/secret"
	"github.com/dynapi/dynapi/engine/resource"
)

// Register registers every built-in kind's strategy but the
// CustomResourceDefinition's, and returns the namespace Finalizer to run
// beside service.
func Register(service *resource.Service) *namespace.Finalizer {
	configmap.Register(service)
	secret.Register(service)
	roles.Register(service)
	return namespace.Register(service)
}
