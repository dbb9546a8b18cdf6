package controlplane

import (
	"context"
	"fmt"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/satoken"
)

// DefaultIssuer is the service-account issuer when none is given: the
// name a cluster's API server has inside it, as kubeadm and kind set it.
const DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

// signingKeyName is the name the generated signing key is stored under.
const signingKeyName = "service-account-signing-key"

// KeyStore keeps the service-account signing key generated when none is
// given, where every process serving the database reads it (the
// postgres Store).
type KeyStore interface {
	// SigningKey returns the PEM key stored under name, storing one
	// made by generate first when there is none.
	SigningKey(ctx context.Context, name string, generate func() ([]byte, error)) ([]byte, error)
}

// ServiceAccounts configures service-account tokens: kube-apiserver's
// --service-account-* and --api-audiences flags.
type ServiceAccounts struct {
	// Issuers are the accepted issuers, the first the one issued; empty:
	// DefaultIssuer.
	Issuers []string
	// Audiences the API accepts; empty: the issuers.
	Audiences []string
	// SigningKey is the PEM private key tokens are signed with; nil: the
	// one Keys holds, generated at the first start.
	SigningKey []byte
	// PublicKeys are PEM keys that verify tokens too (keys rotated out).
	PublicKeys []byte
	// MaxExpiration bounds a requested token's life; 0: kube's bound.
	MaxExpiration time.Duration
	// JWKSURI is the discovery document's jwks_uri; empty: the issuer's.
	JWKSURI string
	// Keys keeps the generated signing key; needed when SigningKey is nil.
	Keys KeyStore
}

// startServiceAccounts builds the tokens of cfg.ServiceAccounts, and
// serves them: the token subresource and discovery in the HTTP API, the
// authenticator in its chain (when requests are authenticated at all).
// Errors: those of reading or generating the keys.
func (c *ControlPlane) startServiceAccounts(ctx context.Context, cfg *Config) error {
	sa := cfg.ServiceAccounts
	if sa == nil {
		return nil
	}
	tokens, err := newTokens(ctx, sa, c.serviceAccountLookup(cfg.Service))
	if err != nil {
		return err
	}
	cfg.HTTP.ServiceAccountTokens, cfg.HTTP.JWKSURI = tokens, sa.JWKSURI
	if cfg.HTTP.Authenticator != nil {
		cfg.HTTP.Authenticator = authn.Union{cfg.HTTP.Authenticator, tokens}
	}
	return nil
}

// newTokens reads sa's keys, generating the signing key when none is given.
func newTokens(ctx context.Context, sa *ServiceAccounts, lookup satoken.Lookup) (*satoken.Tokens, error) {
	pemKey := sa.SigningKey
	if pemKey == nil {
		if sa.Keys == nil {
			return nil, fmt.Errorf("service account tokens: no signing key and nowhere to keep a generated one")
		}
		var err error
		if pemKey, err = sa.Keys.SigningKey(ctx, signingKeyName, satoken.GenerateKey); err != nil {
			return nil, err
		}
	}
	key, err := satoken.ParsePrivateKey(pemKey)
	if err != nil {
		return nil, fmt.Errorf("service account signing key: %w", err)
	}
	opts := satoken.Options{Issuers: serviceAccountIssuers(sa), Audiences: sa.Audiences, SigningKey: key,
		MaxExpiration: sa.MaxExpiration, Lookup: lookup}
	if sa.PublicKeys != nil {
		if opts.PublicKeys, err = satoken.ParsePublicKeys(sa.PublicKeys); err != nil {
			return nil, fmt.Errorf("service account key file: %w", err)
		}
	}
	return satoken.New(opts)
}

// serviceAccountLookup reads stored ServiceAccounts for the token
// authenticator: a token lives while its ServiceAccount does, with the
// uid it names.
func (c *ControlPlane) serviceAccountLookup(service *resource.Service) satoken.Lookup {
	return func(ctx context.Context, namespace, name string) (string, bool, error) {
		res, ver, ok := c.snapshots.Load().Lookup("", "v1", "serviceaccounts")
		if !ok {
			return "", false, engine.Errorf(engine.CodeNotFound, "no ServiceAccount kind is served")
		}
		body, err := service.Get(ctx, resource.Target{Resource: res, Version: ver, Namespace: namespace}, name)
		if err != nil {
			return "", false, err
		}
		return gjson.GetBytes(body, "metadata.uid").String(), gjson.GetBytes(body, "metadata.deletionTimestamp").Exists(), nil
	}
}
