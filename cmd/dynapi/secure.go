package main

import (
	"context"
	"fmt"
	"os"
	"time"

	rbacauthz "github.com/dynapi/dynapi/engine/authz/rbac"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/resource"
)

// secure sets the authentication, audit, authorization and limits of
// opts from the configuration. With RBAC, it builds the index that
// authorizes (started by startRBAC, once the control plane runs).
func (m *Main) secure(service *resource.Service, opts *httpapi.Options) error {
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
		// Told to serve beyond loopback, it must answer the names it is
		// reached by; otherwise only loopback names are served.
		opts.InsecureAnyHost = sec.InsecureAllowAnyAddress
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
	if sec.AuthorizationMode == modeRBAC {
		m.rbac = rbacauthz.New(service, m.reloader, m.Logger)
		opts.Authorizer = m.rbac
	}
	return nil
}

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
	m.controlPlane.Go(ctx, m.rbac.Run)
	waitCtx, cancel := context.WithTimeout(ctx, rbacSyncTimeout)
	defer cancel()
	return m.rbac.WaitSynced(waitCtx)
}
