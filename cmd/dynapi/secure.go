package main

import (
	"context"
	"fmt"

	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/resource"
)

// secure sets the authentication and authorization of opts from the
// configuration.
func (m *Main) secure(ctx context.Context, service *resource.Service, opts *httpapi.Options) error {
	sec := m.Config.Security
	if sec.authenticated() {
		if sec.ClientCAFile != "" && m.Config.TLSCertFile == "" {
			return fmt.Errorf("--client-ca-file needs TLS: give --tls-cert-file and --tls-private-key-file")
		}
		authns, tlsConfig, err := sec.authenticators()
		if err != nil {
			return err
		}
		opts.Authenticator, opts.Anonymous, m.tlsConfig = authns, sec.AnonymousAuth, tlsConfig
	} else {
		m.Logger.Warn("no authentication configured: every request is served as system:anonymous")
	}
	return nil
}
