package authn

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/schema/cel"
)

// credentialIDKey is the extra key kube gives a token's jti under.
const credentialIDKey = "authentication.kubernetes.io/credential-id"

// user maps verified claims to a user and checks it, in the order kube's
// OIDC authenticator does: username, groups, uid, extra, then the claim
// validation rules (required values, then expressions) and the user
// validation rules.
func (a *JWT) user(r *http.Request, c map[string]any) (*engine.User, error) {
	ctx := r.Context()
	var cv cel.Claims
	if a.rules != nil {
		cv = cel.NewClaims(c)
	}
	name, err := a.username(ctx, c, cv)
	if err != nil {
		return nil, err
	}
	u := &engine.User{Name: name}
	if u.Groups, err = a.groups(ctx, c, cv); err != nil {
		return nil, err
	}
	if u.UID, err = a.uid(ctx, c, cv); err != nil {
		return nil, err
	}
	if u.Extra, err = a.extra(ctx, c, cv); err != nil {
		return nil, err
	}
	if err := a.requiredClaims(c); err != nil {
		return nil, err
	}
	if a.rules == nil {
		return u, nil
	}
	if err := a.rules.ValidateClaims(ctx, cv); err != nil {
		return nil, err
	}
	return u, a.rules.ValidateUser(ctx, u)
}

func (a *JWT) username(ctx context.Context, c map[string]any, cv cel.Claims) (string, error) {
	if a.rules != nil {
		if name, mapped, err := a.rules.Username(ctx, cv); mapped {
			return name, err
		}
	}
	m := a.cfg.ClaimMappings.Username
	name, ok := c[m.Claim].(string)
	if !ok {
		return "", fmt.Errorf("oidc: parse username claims %q: not a string", m.Claim)
	}
	if m.Claim == "email" {
		if v, present := c["email_verified"]; present && v != true {
			return "", errors.New("oidc: email not verified")
		}
	}
	if m.Prefix != nil {
		name = *m.Prefix + name
	}
	return name, nil
}

// groups reads the groups claim when the token has it (a string or a list
// of strings), else evaluates the groups expression.
func (a *JWT) groups(ctx context.Context, c map[string]any, cv cel.Claims) ([]string, error) {
	m := a.cfg.ClaimMappings.Groups
	if v, present := c[m.Claim]; m.Claim != "" && present {
		groups, err := stringOrArray(v)
		if err != nil {
			return nil, fmt.Errorf("oidc: parse groups claim %q: %w", m.Claim, err)
		}
		for i := range groups {
			if m.Prefix != nil {
				groups[i] = *m.Prefix + groups[i]
			}
		}
		return groups, nil
	}
	if a.rules == nil {
		return nil, nil
	}
	groups, _, err := a.rules.Groups(ctx, cv)
	return groups, err
}

func (a *JWT) uid(ctx context.Context, c map[string]any, cv cel.Claims) (string, error) {
	if claim := a.cfg.ClaimMappings.UID.Claim; claim != "" {
		uid, ok := c[claim].(string)
		if !ok {
			return "", fmt.Errorf("oidc: parse uid claim %q: not a string", claim)
		}
		return uid, nil
	}
	if a.rules == nil {
		return "", nil
	}
	uid, _, err := a.rules.UID(ctx, cv)
	return uid, err
}

// extra is the token's credential id (its jti) and the extra mappings;
// nil when there is neither.
func (a *JWT) extra(ctx context.Context, c map[string]any, cv cel.Claims) (map[string][]string, error) {
	extra := map[string][]string{}
	if jti, ok := c["jti"].(string); ok {
		extra[credentialIDKey] = []string{"JTI=" + jti}
	}
	if a.rules != nil {
		if err := a.rules.Extra(ctx, cv, extra); err != nil {
			return nil, err
		}
	}
	if len(extra) == 0 {
		return nil, nil
	}
	return extra, nil
}

// requiredClaims checks the claim validation rules written as a claim and
// its requiredValue.
func (a *JWT) requiredClaims(c map[string]any) error {
	for _, rule := range a.cfg.ClaimValidationRules {
		if rule.Claim == "" {
			continue
		}
		v, present := c[rule.Claim]
		if !present {
			return fmt.Errorf("oidc: required claim %s not present in ID token", rule.Claim)
		}
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("oidc: parse claim %s: not a string", rule.Claim)
		}
		if s != rule.RequiredValue {
			return fmt.Errorf("oidc: required claim %s value does not match. Got = %s, want = %s", rule.Claim, s, rule.RequiredValue)
		}
	}
	return nil
}

func stringOrArray(v any) ([]string, error) {
	switch g := v.(type) {
	case string:
		return []string{g}, nil
	case []any:
		out := make([]string, 0, len(g))
		for _, item := range g {
			s, ok := item.(string)
			if !ok {
				return nil, errors.New("not a string or a list of strings")
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, errors.New("not a string or a list of strings")
}
