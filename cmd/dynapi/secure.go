package main

import (
	"fmt"
	"os"
	"time"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/httpapi"
)

// secure sets the authentication, audit and limits of opts from the
// configuration.
func (m *Main) secure(opts *httpapi.Options) error {
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
	return nil
}

// rbac is the RBAC authorization of --authorization-mode=RBAC, with the
// objects of --authorization-policy-file; nil in another mode. Errors:
// reading the file.
func (c SecurityConfig) rbac() (*controlplane.RBAC, error) {
	if c.AuthorizationMode != modeRBAC {
		return nil, nil
	}
	if c.AuthorizationPolicyFile == "" {
		return &controlplane.RBAC{}, nil
	}
	policy, err := os.ReadFile(c.AuthorizationPolicyFile)
	if err != nil {
		return nil, fmt.Errorf("--authorization-policy-file: %w", err)
	}
	return &controlplane.RBAC{Policy: policy}, nil
}
