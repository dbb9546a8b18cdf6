package main

import (
	"context"
	"fmt"
	"os"
	"time"

	rbacauthz "github.com/dynapi/dynapi/engine/authz/rbac"
	"github.com/dynapi/dynapi/engine/rbac"
	"github.com/dynapi/dynapi/engine/registry"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/resource"
)

// secure sets the authentication and authorization of opts from the
// configuration.
func (m *Main) secure(ctx context.Context, service *resource.Service, opts *httpapi.Options) error {
	sec := m.Config.Security
	opts.MaxRequestsInflight, opts.MaxMutatingInflight = sec.MaxRequestsInflight, sec.MaxMutatingInflight
	opts.RequestTimeout, opts.MinRequestTimeout = sec.RequestTimeout, time.Duration(sec.MinRequestTimeout)*time.Second
	if sec.authenticated() {
		if sec.ClientCAFile != "" && m.Config.TLSCertFile == "" {
			return fmt.Errorf("--client-ca-file needs TLS: give --tls-cert-file and --tls-private-key-file")
		}
		authns, err := sec.authenticators()
		if err != nil {
			return err
		}
		opts.Authenticator, opts.Anonymous = authns, sec.AnonymousAuth
	} else {
		m.Logger.Warn("no authentication configured: every request is served as system:anonymous")
	}
	if sec.AuditPolicyFile != "" {
		policy, err := audit.LoadPolicy(sec.AuditPolicyFile)
		if err != nil {
			return err
		}
		if m.auditLog, err = audit.Open(policy, sec.AuditLog); err != nil {
			return err
		}
		opts.Auditor = m.auditLog
	}
	if sec.AuthorizationMode != modeRBAC {
		return nil
	}
	if err := m.startRBAC(ctx, service); err != nil {
		return err
	}
	opts.Authorizer = m.rbac
	return nil
}

// guardRBAC makes the RBAC strategies check escalation against the RBAC
// index, with --authorization-mode=RBAC. Called before anything writes
// through service: strategies are registered before it serves.
func (m *Main) guardRBAC(service *resource.Service) {
	if m.Config.Security.AuthorizationMode != modeRBAC {
		return
	}
	m.rbac = rbacauthz.New(service, snapshotsOf(func() *registry.Snapshot { return m.reloader.Load() }), m.Logger)
	rbac.Guard(service, m.rbac)
}

// snapshotsOf is a function as rbacauthz.Snapshots: the reloader is
// started after the strategies are registered.
type snapshotsOf func() *registry.Snapshot

func (f snapshotsOf) Load() *registry.Snapshot { return f() }

// rbacSyncTimeout bounds the first listing of the RBAC objects at start.
const rbacSyncTimeout = 30 * time.Second

// startRBAC creates the bootstrap roles and those of
// --authorization-policy-file, starts following the RBAC objects and
// waits until they are listed.
func (m *Main) startRBAC(ctx context.Context, service *resource.Service) error {
	var policy []byte
	if path := m.Config.Security.AuthorizationPolicyFile; path != "" {
		var err error
		if policy, err = os.ReadFile(path); err != nil {
			return fmt.Errorf("--authorization-policy-file: %w", err)
		}
	}
	if err := rbacauthz.Bootstrap(ctx, service, m.reloader.Load(), policy); err != nil {
		return err
	}
	m.stopRBAC = runUntilStopped(ctx, m.rbac.Run)
	waitCtx, cancel := context.WithTimeout(ctx, rbacSyncTimeout)
	defer cancel()
	return m.rbac.WaitSynced(waitCtx)
}
