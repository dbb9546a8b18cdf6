package authn

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/apiserver/pkg/apis/apiserver"
)

// OIDCOptions are kube-apiserver's --oidc-* flags.
type OIDCOptions struct {
	IssuerURL     string
	ClientID      string
	UsernameClaim string
	// UsernamePrefix is put before every user name; empty means the
	// issuer URL and "#" for a claim other than email, "-" none.
	UsernamePrefix string
	GroupsClaim    string
	GroupsPrefix   string
	// CAFile is the CA of the issuer's certificate; empty: the system's.
	CAFile string
}

// NewOIDC returns the JWT authenticator the --oidc-* flags describe: the
// one-issuer AuthenticationConfiguration kube-apiserver makes of them.
// Errors: a URL that is not https, an unreadable CA file.
func NewOIDC(opts OIDCOptions) (*JWT, error) {
	if !strings.HasPrefix(opts.IssuerURL, "https://") {
		return nil, fmt.Errorf("--oidc-issuer-url must be an https URL: %q", opts.IssuerURL)
	}
	cfg, err := opts.jwtAuthenticator()
	if err != nil {
		return nil, err
	}
	return NewJWT(cfg, nil)
}

// jwtAuthenticator is the flags as a JWTAuthenticator, as kube's
// BuiltInAuthenticationOptions.ToAuthenticationConfig makes it.
func (opts OIDCOptions) jwtAuthenticator() (apiserver.JWTAuthenticator, error) {
	claim := opts.UsernameClaim
	if claim == "" {
		claim = "sub"
	}
	prefix := opts.UsernamePrefix
	switch {
	case prefix == "-":
		prefix = ""
	case prefix == "" && claim != "email":
		prefix = opts.IssuerURL + "#"
	}
	cfg := apiserver.JWTAuthenticator{
		Issuer:        apiserver.Issuer{URL: opts.IssuerURL, Audiences: []string{opts.ClientID}, AudienceMatchPolicy: apiserver.AudienceMatchPolicyMatchAny},
		ClaimMappings: apiserver.ClaimMappings{Username: apiserver.PrefixedClaimOrExpression{Claim: claim, Prefix: &prefix}},
	}
	if opts.GroupsClaim != "" {
		groupsPrefix := opts.GroupsPrefix
		cfg.ClaimMappings.Groups = apiserver.PrefixedClaimOrExpression{Claim: opts.GroupsClaim, Prefix: &groupsPrefix}
	}
	if opts.CAFile != "" {
		pem, err := os.ReadFile(opts.CAFile)
		if err != nil {
			return cfg, fmt.Errorf("read --oidc-ca-file: %w", err)
		}
		cfg.Issuer.CertificateAuthority = string(pem)
	}
	return cfg, nil
}
