package controlplane

import (
	"context"
	"errors"
	"os"

	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/authnconfig"
)

// errAnonymousTwice is kube's refusal of --anonymous-auth beside a file
// with an anonymous section.
var errAnonymousTwice = errors.New("anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file")

// startAuthenticationConfig reads cfg.AuthenticationConfig, puts its
// issuers in the authenticator chain and its anonymous settings in the
// HTTP options, and follows the file until Close. Before the
// service-account tokens, which join a chain only when there is one.
// Errors: those of the file, and --anonymous-auth beside its anonymous
// section.
func (c *ControlPlane) startAuthenticationConfig(ctx context.Context, cfg *Config) error {
	if cfg.AuthenticationConfig == "" {
		return nil
	}
	opts := authnconfig.Options{DisallowedIssuers: serviceAccountIssuers(cfg.ServiceAccounts), Logger: cfg.Logger}
	if cfg.HTTP.Metrics != nil {
		opts.Registerer = cfg.HTTP.Metrics
	}
	opts.ServerID, _ = os.Hostname()
	f, err := authnconfig.Open(cfg.AuthenticationConfig, opts)
	if err != nil {
		return err
	}
	if anon := f.Anonymous(); anon != nil {
		if cfg.HTTP.Anonymous {
			return errAnonymousTwice
		}
		cfg.HTTP.Anonymous = anon.Enabled
		cfg.HTTP.AnonymousPaths = nil
		for _, cond := range anon.Conditions {
			cfg.HTTP.AnonymousPaths = append(cfg.HTTP.AnonymousPaths, cond.Path)
		}
	}
	if cfg.HTTP.Authenticator == nil {
		cfg.HTTP.Authenticator = f
	} else {
		cfg.HTTP.Authenticator = authn.Union{cfg.HTTP.Authenticator, f}
	}
	c.Go(ctx, f.Run)
	return nil
}

// serviceAccountIssuers are the issuers of service-account tokens, which
// no JWT issuer of the file may name.
func serviceAccountIssuers(sa *ServiceAccounts) []string {
	if sa == nil || len(sa.Issuers) == 0 {
		return []string{DefaultIssuer}
	}
	return sa.Issuers
}
