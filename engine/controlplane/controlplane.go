// Package controlplane is dynapi's composition root: Start starts all
// that `dynapi serve` runs over a resource.Service, from the explicit
// options of a Config (the definitions and their reloader, the field
// indexes, the built-in kinds' strategies, the CRD controller, the
// namespace finalizer, the garbage collector, RBAC, the HTTP API and its
// OpenAPI documents, the listener). cmd/dynapi turns flags into a Config
// and the tests start servers with it, so that a change to the wiring
// reaches both. The database stays with the caller: pgx is owned by
// engine/postgres, whose Store is handed in through the Config's small
// interfaces.
package controlplane

import (
	"github.com/dynapi/dynapi/engine/kinds/admissionpolicies"
	"github.com/dynapi/dynapi/engine/kinds/apiservice"
	"github.com/dynapi/dynapi/engine/kinds/configmap"
	"github.com/dynapi/dynapi/engine/kinds/namespace"
	"github.com/dynapi/dynapi/engine/kinds/roles"
	"github.com/dynapi/dynapi/engine/kinds/secret"
	"github.com/dynapi/dynapi/engine/kinds/storageversionmigration"
	"github.com/dynapi/dynapi/engine/kinds/webhookconfiguration"
	"github.com/dynapi/dynapi/engine/resource"
)

// Controllers are the background work of the built-in kinds, to run
// beside the Service their strategies are registered with.
type Controllers struct {
	// Namespaces empties and deletes the namespaces being deleted.
	Namespaces *namespace.Finalizer
	// Migrations runs the StorageVersionMigrations.
	Migrations *storageversionmigration.Controller
	// PolicyStatus writes ValidatingAdmissionPolicies' status.
	PolicyStatus *admissionpolicies.StatusController
}

// Register registers every built-in kind's strategy but the
// CustomResourceDefinition's, and returns their controllers to run
// beside service.
func Register(service *resource.Service) Controllers {
	configmap.Register(service)
	secret.Register(service)
	roles.Register(service)
	apiservice.Register(service)
	webhookconfiguration.Register(service)
	return Controllers{Namespaces: namespace.Register(service), Migrations: storageversionmigration.Register(service),
		PolicyStatus: admissionpolicies.Register(service)}
}
