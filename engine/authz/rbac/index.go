package rbac

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/informer"
	"github.com/dynapi/dynapi/engine/resource"
)

// Group is the API group of the RBAC kinds.
const Group = "rbac.authorization.k8s.io"

// Index follows the RBAC objects stored through a resource.Service and
// keeps their compiled policy. A change through any process reaches it
// through the watch, within the store's notification delay (see
// informer.Set).
type Index struct {
	service   *resource.Service  // reads a role the index has not seen yet
	snapshots informer.Snapshots // resolves that role's kind
	set       *informer.Set
	logger    *slog.Logger
	policy    atomic.Pointer[policy]
}

// kinds are the followed resources, with how to keep an object of each.
var kinds = []kindOf{
	{"roles", "Role", func(o *objects, k string, b []byte) error { return decodeInto(o.roles, k, b) }},
	{"clusterroles", "ClusterRole", func(o *objects, k string, b []byte) error { return decodeInto(o.clusterRoles, k, b) }},
	{"rolebindings", "RoleBinding", func(o *objects, k string, b []byte) error { return decodeInto(o.roleBindings, k, b) }},
	{"clusterrolebindings", "ClusterRoleBinding", func(o *objects, k string, b []byte) error { return decodeInto(o.clusterRoleBindings, k, b) }},
}

// kindOf is one followed kind.
type kindOf struct {
	resource, kind string
	set            func(o *objects, key string, body []byte) error
}

// followed is the informer's name of kind k.
func (k kindOf) followed() informer.Resource {
	return informer.Resource{Group: Group, Version: "v1", Resource: k.resource}
}

func decodeInto[T any](m map[string]*T, key string, body []byte) error {
	v := new(T)
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("decode %s: %w", key, err)
	}
	m[key] = v
	return nil
}

// New returns an Index; Run fills it.
func New(service *resource.Service, snapshots informer.Snapshots, logger *slog.Logger) *Index {
	x := &Index{service: service, snapshots: snapshots, logger: logger}
	resources := make([]informer.Resource, len(kinds))
	for i, k := range kinds {
		resources[i] = k.followed()
	}
	x.set = informer.NewSet(service, snapshots, logger, resources, x.compile)
	x.compile(nil)
	return x
}

// Run follows every RBAC kind until ctx ends.
func (x *Index) Run(ctx context.Context) { x.set.Run(ctx) }

// WaitSynced waits until every kind was listed once. Errors: ctx's.
func (x *Index) WaitSynced(ctx context.Context) error { return x.set.WaitSynced(ctx) }

// compile publishes the policy of objs. An object that does not decode is
// left out (the kinds' validation keeps them out of the store).
func (x *Index) compile(objs informer.Objects) {
	o := objects{roles: map[string]*rbacv1.Role{}, clusterRoles: map[string]*rbacv1.ClusterRole{},
		roleBindings: map[string]*rbacv1.RoleBinding{}, clusterRoleBindings: map[string]*rbacv1.ClusterRoleBinding{}}
	for _, k := range kinds {
		for key, b := range objs[k.followed()] {
			if err := k.set(&o, key, b); err != nil {
				x.logger.Warn("RBAC object left out", "resource", k.resource, "err", err)
			}
		}
	}
	x.policy.Store(compile(&o))
}

// Static returns an Index holding the RBAC objects docs (JSON, each with
// its kind), not following any store: for tests and benchmarks. Errors:
// BadRequest for a document that is not an RBAC object.
func Static(docs ...[]byte) (*Index, error) {
	x := New(nil, nil, slog.New(slog.DiscardHandler))
	listed := informer.Objects{}
	for _, k := range kinds {
		listed[k.followed()] = map[string][]byte{}
	}
	for _, d := range docs {
		var m struct{ Kind string }
		if err := json.Unmarshal(d, &m); err != nil {
			return nil, engine.Errorf(engine.CodeBadRequest, "decode RBAC object: %v", err)
		}
		i := slices.IndexFunc(kinds, func(k kindOf) bool { return k.kind == m.Kind })
		if i < 0 {
			return nil, engine.Errorf(engine.CodeBadRequest, "%q is not an RBAC kind", m.Kind)
		}
		listed[kinds[i].followed()][informer.Key(d)] = d
	}
	x.set.Publish(listed)
	return x, nil
}
