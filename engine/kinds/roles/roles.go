// Package roles holds the strategies of rbac.authorization.k8s.io's kinds:
// a RoleBinding's or ClusterRoleBinding's roleRef cannot change, and, once
// RBAC authorizes (Guard), no Role or binding may grant more than its
// writer holds, as in kube-apiserver. The authorizer is authz/rbac.
package roles

import (
	"encoding/json"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
)

// Group is the API group of the kinds of this package.
const Group = "rbac.authorization.k8s.io"

// The resources the Binding strategy serves.
var (
	RoleBindings        = engine.GroupResource{Group: Group, Resource: "rolebindings"}
	ClusterRoleBindings = engine.GroupResource{Group: Group, Resource: "clusterrolebindings"}
)

// Binding is the strategy of RoleBindings and ClusterRoleBindings.
type Binding struct {
	resource.CustomResource
	escalation Escalation
}

var _ resource.Strategy = Binding{}

// Register makes service serve the RBAC kinds with their strategies,
// without the escalation check (which Guard adds).
func Register(service *resource.Service) { Guard(service, nil) }

// AllowUnconditionalUpdate is true, as for kube-apiserver's RBAC kinds.
func (Binding) AllowUnconditionalUpdate() bool { return true }

// Validate refuses an update that changes roleRef.
func (Binding) Validate(w *resource.Write) ([]engine.FieldError, []string) {
	if w.Operation != resource.UpdateOperation || !w.Changed("roleRef") {
		return nil, nil
	}
	var value any
	_ = json.Unmarshal([]byte(gjson.GetBytes(w.Object, "roleRef").Raw), &value) // valid: the schema passed
	msg := field.Invalid(field.NewPath("roleRef"), value, "cannot change roleRef").ErrorBody()
	return []engine.FieldError{{Type: engine.CauseInvalid, Path: "roleRef", Message: msg}}, nil
}
