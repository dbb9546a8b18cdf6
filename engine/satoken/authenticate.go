package satoken

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"gopkg.in/go-jose/go-jose.v2/jwt"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authn"
)

// The user names, groups and extra keys kube gives a service account
// (k8s.io/apiserver/pkg/authentication/serviceaccount).
const (
	usernamePrefix  = "system:serviceaccount:"
	allGroup        = "system:serviceaccounts"
	groupPrefix     = "system:serviceaccounts:"
	credentialIDKey = "authentication.kubernetes.io/credential-id"
	credentialIDJTI = "JTI="
)

// Username is kube's user name of a service account,
// system:serviceaccount:NS:NAME.
func Username(namespace, name string) string {
	return usernamePrefix + namespace + ":" + name
}

var _ authn.Authenticator = (*Tokens)(nil)

// Authenticate reads the request's bearer token as a service-account
// token (Verify), for the audiences its context asks for
// (authn.WithAudiences) or the API's.
func (t *Tokens) Authenticate(r *http.Request) (*engine.User, bool, error) {
	token, ok := authn.Bearer(r)
	if !ok {
		return nil, false, nil
	}
	u, ok, err := t.Verify(r.Context(), token, authn.AudiencesFrom(r.Context()))
	if !ok || err != nil {
		return nil, false, err
	}
	return u, true, nil
}

// Verify checks token as kube's service-account authenticator does: a JWT
// of one of the issuers, signed with one of the keys, not expired, for
// one of audiences (the API's when empty), naming a ServiceAccount that
// exists with the uid the token carries and is not being deleted. ok is
// false for a token that is not a JWT of these issuers; err says why one
// that is fails.
func (t *Tokens) Verify(ctx context.Context, token string, audiences []string) (u *engine.User, ok bool, err error) {
	parsed, public, ok := t.ours(token)
	if !ok {
		return nil, false, nil
	}
	var private privateClaims
	if err := t.claims(parsed, public, &private); err != nil {
		return nil, true, err
	}
	if len(audiences) == 0 {
		audiences = t.opts.Audiences
	}
	if !overlap(audiences, public.Audience) {
		return nil, true, fmt.Errorf("token audiences %q is invalid for the target audiences %q", []string(public.Audience), audiences)
	}
	sa, err := t.account(ctx, public, private)
	if err != nil {
		return nil, true, err
	}
	u = &engine.User{Name: Username(sa.Namespace, sa.Name), UID: sa.UID, Groups: []string{allGroup, groupPrefix + sa.Namespace}}
	if public.ID != "" {
		u.Extra = map[string][]string{credentialIDKey: {credentialIDJTI + public.ID}}
	}
	return u, true, nil
}

// ours parses token and reads its claims unverified, to tell whether it
// is a JWT of one of the issuers.
func (t *Tokens) ours(token string) (*jwt.JSONWebToken, *jwt.Claims, bool) {
	if strings.Count(token, ".") != 2 {
		return nil, nil, false
	}
	parsed, err := jwt.ParseSigned(token)
	if err != nil {
		return nil, nil, false
	}
	var public jwt.Claims
	if err := parsed.UnsafeClaimsWithoutVerification(&public); err != nil || !slices.Contains(t.opts.Issuers, public.Issuer) {
		return nil, nil, false
	}
	return parsed, &public, true
}

// claims verifies the signature with the key the header names (or each
// key, for a token without a kid), then the times.
func (t *Tokens) claims(parsed *jwt.JSONWebToken, public *jwt.Claims, private *privateClaims) error {
	kid := ""
	if len(parsed.Headers) > 0 {
		kid = parsed.Headers[0].KeyID
	}
	verified := false
	for _, k := range t.keys {
		if kid != "" && k.id != kid {
			continue
		}
		if parsed.Claims(k.key, public, private) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return errors.New("invalid signature")
	}
	switch err := public.Validate(jwt.Expected{Time: t.opts.Now()}); {
	case errors.Is(err, jwt.ErrExpired):
		return errors.New("service account token has expired")
	case err != nil:
		return fmt.Errorf("service account token is not valid: %w", err)
	}
	return nil
}

// account is the ServiceAccount the claims name, checked against the
// stored one as kube's validator checks it.
func (t *Tokens) account(ctx context.Context, public *jwt.Claims, private privateClaims) (Account, error) {
	k := private.Kubernetes
	if k.Namespace == "" || k.Svcacct.Name == "" || k.Svcacct.UID == "" || public.Subject != Username(k.Namespace, k.Svcacct.Name) {
		return Account{}, errors.New("service account token claims are incomplete")
	}
	uid, deleting, err := t.opts.Lookup(ctx, k.Namespace, k.Svcacct.Name)
	if err != nil {
		return Account{}, err
	}
	if uid != k.Svcacct.UID {
		return Account{}, fmt.Errorf("service account UID (%s) does not match claim (%s)", uid, k.Svcacct.UID)
	}
	if deleting {
		return Account{}, fmt.Errorf("service account %s/%s has been deleted", k.Namespace, k.Svcacct.Name)
	}
	return Account{Namespace: k.Namespace, Name: k.Svcacct.Name, UID: uid}, nil
}

// overlap reports whether a and b have a value in common.
func overlap(a, b []string) bool {
	for _, v := range a {
		if slices.Contains(b, v) {
			return true
		}
	}
	return false
}
