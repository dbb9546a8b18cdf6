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

// serviceAccounts is the service-account token configuration, its keys
// read from their files; without a signing key file, the key is the one
// the database keeps (generated at the first start), so that every
// process serving it verifies the others' tokens. Errors: reading a file.
func (m *Main) serviceAccounts() (*controlplane.ServiceAccounts, error) {
	c := m.Config.Security.ServiceAccounts
	sa := &controlplane.ServiceAccounts{Issuers: c.Issuers, Audiences: c.APIAudiences, MaxExpiration: c.MaxExpiration,
		JWKSURI: c.JWKSURI, Keys: m.store}
	if c.SigningKeyFile != "" {
		key, err := os.ReadFile(c.SigningKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--service-account-signing-key-file: %w", err)
		}
		sa.SigningKey = key
	}
	for _, file := range c.KeyFiles {
		keys, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--service-account-key-file: %w", err)
		}
		sa.PublicKeys = append(append(sa.PublicKeys, keys...), '\n')
	}
	return sa, nil
}

// rootCA is the CA bundle of kube-root-ca.crt: --root-ca-file, else
// --client-ca-file (in a kubeadm cluster one CA signs the server's and the
// clients' certificates); nil when neither is given. Errors: reading it.
func (c SecurityConfig) rootCA() ([]byte, error) {
	file := c.RootCAFile
	if file == "" {
		file = c.ClientCAFile
	}
	if file == "" {
		return nil, nil
	}
	ca, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("root CA: %w", err)
	}
	return ca, nil
}
