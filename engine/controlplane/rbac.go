package controlplane

import (
	"context"
	"time"

	rbacauthz "github.com/dynapi/dynapi/engine/authz/rbac"
	"github.com/dynapi/dynapi/engine/kinds/roles"
)

// RBAC is the RBAC authorization of a control plane.
type RBAC struct {
	// Policy is YAML of RBAC objects (Roles, ClusterRoles and bindings)
	// created at start unless they exist, beside kube's bootstrap roles
	// (kube's --authorization-policy-file); nil: none.
	Policy []byte
}

// rbacIndex is the index that authorizes with RBAC.
type rbacIndex = rbacauthz.Index

// rbacSyncTimeout bounds the first listing of the RBAC objects at start.
const rbacSyncTimeout = 30 * time.Second

// newRBAC returns the index that authorizes with cfg.RBAC, and makes the
// RBAC kinds' strategies refuse Roles and bindings that grant more than
// their writer holds; nil without cfg.RBAC.
func (c *ControlPlane) newRBAC(cfg Config) *rbacIndex {
	if cfg.RBAC == nil {
		return nil
	}
	index := rbacauthz.New(cfg.Service, c.snapshots, cfg.Logger)
	roles.Guard(cfg.Service, index)
	return index
}

// startRBAC creates the bootstrap roles and those of the policy, starts
// following the RBAC objects and waits until they are listed; nothing
// without index. Errors: Bootstrap's and WaitSynced's.
func (c *ControlPlane) startRBAC(ctx context.Context, cfg Config, index *rbacIndex) error {
	if index == nil {
		return nil
	}
	if err := rbacauthz.Bootstrap(ctx, cfg.Service, c.snapshots.Load(), cfg.RBAC.Policy); err != nil {
		return err
	}
	c.goController(ctx, "rbac-authorizer", index.Run)
	waitCtx, cancel := context.WithTimeout(ctx, rbacSyncTimeout)
	defer cancel()
	return index.WaitSynced(waitCtx)
}
