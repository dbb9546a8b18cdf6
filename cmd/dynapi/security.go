package main

import (
	"flag"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/controlplane"
)

// SecurityConfig is who may reach the server and what they may do:
// kube-apiserver's authentication, authorization and limits flags.
type SecurityConfig struct {
	TokenAuthFile string
	ClientCAFile  string
	// RootCAFile is the CA bundle published in every namespace as
	// kube-root-ca.crt (kube-controller-manager's --root-ca-file).
	RootCAFile string
	// AnonymousAuth serves requests without credentials as
	// system:anonymous when an authenticator is configured.
	AnonymousAuth bool
	// InsecureAllowAnyAddress lets a server without authentication listen
	// on an address other than loopback.
	InsecureAllowAnyAddress bool
	AuthorizationMode       string
	AuthorizationPolicyFile string
	OIDC                    authn.OIDCOptions
	// AuthenticationConfig is kube's --authentication-config file (JWT
	// issuers, anonymous settings), followed while serving.
	AuthenticationConfig string
	MaxRequestsInflight  int
	MaxMutatingInflight  int
	RequestTimeout       time.Duration
	MinRequestTimeout    int // seconds, as kube's flag
	AuditPolicyFile      string
	AuditLog             audit.Options
	ServiceAccounts      ServiceAccountConfig
}

// ServiceAccountConfig is kube-apiserver's service-account token flags.
type ServiceAccountConfig struct {
	Issuers        []string
	SigningKeyFile string
	KeyFiles       []string
	APIAudiences   []string
	MaxExpiration  time.Duration
	JWKSURI        string
}

// The authorization modes.
const (
	modeAlwaysAllow = "AlwaysAllow"
	modeRBAC        = "RBAC"
)

func securityFlags(fs *flag.FlagSet, c *SecurityConfig, withEnv func(name, env string) string) {
	fs.StringVar(&c.TokenAuthFile, "token-auth-file", "",
		"authenticate bearer tokens listed in this CSV file (token,user,uid,\"group1,group2\")"+withEnv("token-auth-file", "DYNAPI_TOKEN_AUTH_FILE"))
	fs.StringVar(&c.ClientCAFile, "client-ca-file", "",
		"authenticate TLS client certificates signed by a CA in this PEM file (CN user, O groups)"+withEnv("client-ca-file", "DYNAPI_CLIENT_CA_FILE"))
	fs.StringVar(&c.RootCAFile, "root-ca-file", "",
		"PEM CA bundle published in every namespace as the kube-root-ca.crt ConfigMap (default: --client-ca-file's)"+withEnv("root-ca-file", "DYNAPI_ROOT_CA_FILE"))
	fs.StringVar(&c.OIDC.IssuerURL, "oidc-issuer-url", "", "authenticate JWTs of this OpenID Connect issuer (https)"+withEnv("oidc-issuer-url", "DYNAPI_OIDC_ISSUER_URL"))
	fs.StringVar(&c.OIDC.ClientID, "oidc-client-id", "", "the audience the OIDC tokens must carry"+withEnv("oidc-client-id", "DYNAPI_OIDC_CLIENT_ID"))
	fs.StringVar(&c.OIDC.UsernameClaim, "oidc-username-claim", "sub", "the JWT claim that names the user")
	fs.StringVar(&c.OIDC.UsernamePrefix, "oidc-username-prefix", "", "prefix of user names from OIDC (default: the issuer URL and # unless the claim is email; - for none)")
	fs.StringVar(&c.OIDC.GroupsClaim, "oidc-groups-claim", "", "the JWT claim that lists the user's groups")
	fs.StringVar(&c.OIDC.GroupsPrefix, "oidc-groups-prefix", "", "prefix of group names from OIDC")
	fs.StringVar(&c.OIDC.CAFile, "oidc-ca-file", "", "CA of the OIDC issuer's serving certificate (default: the system's)")
	fs.StringVar(&c.AuthenticationConfig, "authentication-config", "",
		"apiserver.config.k8s.io AuthenticationConfiguration file: JWT issuers with claim rules and mappings, anonymous settings; "+
			"reloaded when it changes; not with --oidc-* flags"+withEnv("authentication-config", "DYNAPI_AUTHENTICATION_CONFIG"))
	fs.BoolVar(&c.AnonymousAuth, "anonymous-auth", false,
		"serve requests without credentials as system:anonymous instead of answering 401"+withEnv("anonymous-auth", "DYNAPI_ANONYMOUS_AUTH"))
	fs.BoolVar(&c.InsecureAllowAnyAddress, "insecure-allow-any-address", false,
		"listen on a non-loopback address with no authentication configured: anyone who reaches the port can do anything"+
			withEnv("insecure-allow-any-address", "DYNAPI_INSECURE_ALLOW_ANY_ADDRESS"))
	fs.StringVar(&c.AuthorizationMode, "authorization-mode", modeAlwaysAllow,
		"AlwaysAllow, or RBAC: authorize with the Roles and bindings stored through the API"+withEnv("authorization-mode", "DYNAPI_AUTHORIZATION_MODE"))
	fs.StringVar(&c.AuthorizationPolicyFile, "authorization-policy-file", "",
		"YAML file of RBAC objects (Roles, ClusterRoles and bindings) created at start unless they exist"+withEnv("authorization-policy-file", "DYNAPI_AUTHORIZATION_POLICY_FILE"))
	fs.DurationVar(&c.RequestTimeout, "request-timeout", time.Minute,
		"longest a request other than a watch may take before it is answered 504 (0: no bound)"+withEnv("request-timeout", "DYNAPI_REQUEST_TIMEOUT"))
	fs.IntVar(&c.MinRequestTimeout, "min-request-timeout", 1800,
		"seconds a watch without timeoutSeconds lasts at least (it ends between once and twice this)"+withEnv("min-request-timeout", "DYNAPI_MIN_REQUEST_TIMEOUT"))
	fs.StringVar(&c.AuditPolicyFile, "audit-policy-file", "",
		"audit.k8s.io/v1 Policy: which requests are recorded, at which level"+withEnv("audit-policy-file", "DYNAPI_AUDIT_POLICY_FILE"))
	fs.StringVar(&c.AuditLog.Path, "audit-log-path", "", "where audit events go, as JSON lines (- for standard output)"+withEnv("audit-log-path", "DYNAPI_AUDIT_LOG_PATH"))
	fs.IntVar(&c.AuditLog.MaxSizeMB, "audit-log-maxsize", 100, "megabytes an audit log file reaches before it is rotated (0: never)")
	fs.IntVar(&c.AuditLog.MaxBackups, "audit-log-maxbackup", 10, "rotated audit log files kept")
	serviceAccountFlags(fs, &c.ServiceAccounts, withEnv)
	fs.IntVar(&c.MaxRequestsInflight, "max-requests-inflight", 400,
		"most non-mutating requests served at once; more are answered 429 (0: no limit)"+withEnv("max-requests-inflight", "DYNAPI_MAX_REQUESTS_INFLIGHT"))
	fs.IntVar(&c.MaxMutatingInflight, "max-mutating-requests-inflight", 200,
		"most mutating requests served at once; more are answered 429 (0: no limit)"+withEnv("max-mutating-requests-inflight", "DYNAPI_MAX_MUTATING_REQUESTS_INFLIGHT"))
}

func serviceAccountFlags(fs *flag.FlagSet, c *ServiceAccountConfig, withEnv func(name, env string) string) {
	fs.Func("service-account-issuer", "issuer of service-account tokens (repeat or comma-separate to accept more; the first is issued; default "+
		controlplane.DefaultIssuer+")", appendList(&c.Issuers))
	fs.StringVar(&c.SigningKeyFile, "service-account-signing-key-file", "",
		"PEM private key that signs service-account tokens (default: one generated at the first start and kept in the database)"+
			withEnv("service-account-signing-key-file", "DYNAPI_SERVICE_ACCOUNT_SIGNING_KEY_FILE"))
	fs.Func("service-account-key-file", "PEM file of keys that verify service-account tokens besides the signing key's (repeatable)",
		appendList(&c.KeyFiles))
	fs.Func("api-audiences", "audiences the API accepts in service-account tokens (comma-separated; default: the issuers)", appendList(&c.APIAudiences))
	fs.DurationVar(&c.MaxExpiration, "service-account-max-token-expiration", 0, "longest life of a requested service-account token (0: 2^32 seconds)")
	fs.StringVar(&c.JWKSURI, "service-account-jwks-uri", "", "jwks_uri of the issuer's discovery document (default: the issuer's /openid/v1/jwks)")
}

// appendList is a flag that adds its comma-separated values to *list
// each time it is given, as kube's string slice flags.
func appendList(list *[]string) func(string) error {
	return func(v string) error {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*list = append(*list, s)
			}
		}
		return nil
	}
}

func (c SecurityConfig) check() error {
	if c.AuthorizationMode != modeAlwaysAllow && c.AuthorizationMode != modeRBAC {
		return fmt.Errorf("--authorization-mode: %q is not AlwaysAllow or RBAC", c.AuthorizationMode)
	}
	if c.AuthorizationPolicyFile != "" && c.AuthorizationMode != modeRBAC {
		return fmt.Errorf("--authorization-policy-file needs --authorization-mode=RBAC")
	}
	if (c.AuditPolicyFile == "") != (c.AuditLog.Path == "") {
		return fmt.Errorf("--audit-policy-file and --audit-log-path go together")
	}
	if c.AuthenticationConfig != "" && c.oidcFlagsSet() {
		return fmt.Errorf("authentication-config file and oidc-* flags are mutually exclusive")
	}
	if (c.OIDC.IssuerURL == "") != (c.OIDC.ClientID == "") {
		return fmt.Errorf("--oidc-issuer-url and --oidc-client-id go together")
	}
	return nil
}

// oidcFlagsSet reports whether any --oidc-* flag is given a value other
// than its default.
func (c SecurityConfig) oidcFlagsSet() bool {
	return c.OIDC != (authn.OIDCOptions{}) && c.OIDC != (authn.OIDCOptions{UsernameClaim: "sub"})
}

// authenticated reports whether any authenticator is configured.
func (c SecurityConfig) authenticated() bool {
	return c.TokenAuthFile != "" || c.ClientCAFile != "" || c.OIDC.IssuerURL != "" || c.AuthenticationConfig != ""
}

// authenticators builds the configured authenticators.
func (c SecurityConfig) authenticators() (authn.Union, error) {
	var u authn.Union
	if c.ClientCAFile != "" {
		cc, err := authn.LoadClientCA(c.ClientCAFile)
		if err != nil {
			return nil, err
		}
		u = append(u, cc)
	}
	if c.TokenAuthFile != "" {
		tf, err := authn.LoadTokenFile(c.TokenAuthFile)
		if err != nil {
			return nil, err
		}
		u = append(u, tf)
	}
	if c.OIDC.IssuerURL != "" {
		o, err := authn.NewOIDC(c.OIDC)
		if err != nil {
			return nil, err
		}
		u = append(u, o)
	}
	return u, nil
}

// checkListen refuses a non-loopback address for a server nobody has to
// authenticate to, unless told otherwise.
func (c SecurityConfig) checkListen(addr string) error {
	if c.authenticated() || c.InsecureAllowAnyAddress {
		return nil
	}
	local, err := loopback(addr)
	if err != nil || local {
		return err
	}
	return fmt.Errorf("refusing to listen on %s with no authentication configured: anyone who reaches it could read and change "+
		"everything. Let dynapi bootstrap its certificates and RBAC (--bootstrap, without --tls-cert-file), configure --token-auth-file, "+
		"--client-ca-file, --oidc-issuer-url or --authentication-config, listen on 127.0.0.1, or pass --insecure-allow-any-address", addr)
}

// loopback reports whether addr (host:port) is reachable from this
// machine only.
func loopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("--listen %q: %w", addr, err)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// The start-up warnings of configurations that run but expose more than
// their flags suggest.
const (
	warnClearTokens = "bearer tokens are accepted over plain HTTP on a non-loopback address: they travel in clear text, " +
		"and whoever sees one on the network can use it; serve TLS with --tls-cert-file and --tls-private-key-file"
	warnAlwaysAllow = "--authorization-mode=AlwaysAllow: every authenticated user may do anything, read every Secret included; " +
		"use --authorization-mode=RBAC"
)

// warnings returns the start-up warnings of cfg, which checkListen
// accepted.
func (cfg Config) warnings() []string {
	sec := cfg.Security
	var out []string
	tokens := sec.TokenAuthFile != "" || sec.OIDC.IssuerURL != "" || sec.AuthenticationConfig != ""
	if local, _ := loopback(cfg.Listen); tokens && !local && cfg.TLSCertFile == "" {
		out = append(out, warnClearTokens)
	}
	if sec.authenticated() && sec.AuthorizationMode == modeAlwaysAllow {
		out = append(out, warnAlwaysAllow)
	}
	return out
}
