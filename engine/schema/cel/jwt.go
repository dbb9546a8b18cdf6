package cel

import (
	"context"
	"errors"
	"fmt"
	"sync"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	authenticationcel "k8s.io/apiserver/pkg/authentication/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/lazy"

	"github.com/dynapi/dynapi/engine"
)

// JWT is the compiled CEL of one JWT authenticator of kube's
// AuthenticationConfiguration: its claim mapping expressions and its claim
// and user validation rules, evaluated as kube's OIDC authenticator does.
// It is immutable and safe for concurrent use.
type JWT struct {
	m authenticationcel.CELMapper
}

// compiler is kube's authentication CEL environment: built once, when a
// server first reads an authentication configuration, so that the others
// do not pay for it at start.
var compiler = sync.OnceValue(authenticationcel.NewDefaultCompiler)

// ValidateAuthentication checks an AuthenticationConfiguration with kube's
// own validation, CEL expressions compiled; disallowedIssuers are the
// service-account issuers. The error lists every problem with its field
// path (jwt[0].claimMappings.username.expression: ...).
func ValidateAuthentication(c *apiserver.AuthenticationConfiguration, disallowedIssuers []string) error {
	return validation.ValidateAuthenticationConfiguration(compiler(), c, disallowedIssuers).ToAggregate()
}

// CompileJWT validates one JWT authenticator and compiles its expressions.
func CompileJWT(a apiserver.JWTAuthenticator, disallowedIssuers []string) (*JWT, error) {
	m, errs := validation.CompileAndValidateJWTAuthenticator(compiler(), a, disallowedIssuers)
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}
	return &JWT{m: m}, nil
}

// Claims are a token's claims as CEL sees them (the claims variable),
// built once per token and decoded lazily, as kube does.
type Claims struct{ v *lazy.MapValue }

// NewClaims wraps claims decoded from a JWT's JSON payload.
func NewClaims(claims map[string]any) Claims {
	m := lazy.NewMapValue(types.NewObjectType("kubernetes.claims"))
	for name, value := range claims {
		m.Append(name, func(*lazy.MapValue) ref.Val { return nativeToValueWithUnescape(value) })
	}
	return Claims{v: m}
}

// Username evaluates the username expression; mapped is false when the
// authenticator maps the username from a claim instead.
func (j *JWT) Username(ctx context.Context, c Claims) (name string, mapped bool, err error) {
	if j.m.Username == nil {
		return "", false, nil
	}
	r, err := j.m.Username.EvalClaimMapping(ctx, c.v)
	if err != nil {
		return "", true, fmt.Errorf("oidc: error evaluating username claim expression: %w", err)
	}
	if r.EvalResult.Type() != celgo.StringType {
		return "", true, errors.New("oidc: error evaluating username claim expression: username claim expression must return a string")
	}
	name = r.EvalResult.Value().(string)
	if name == "" {
		return "", true, errors.New("oidc: empty username via CEL expression is not allowed")
	}
	return name, true, nil
}

// Groups evaluates the groups expression; mapped is false without one.
func (j *JWT) Groups(ctx context.Context, c Claims) (groups []string, mapped bool, err error) {
	if j.m.Groups == nil {
		return nil, false, nil
	}
	r, err := j.m.Groups.EvalClaimMapping(ctx, c.v)
	if err == nil {
		groups, err = stringList(r.EvalResult)
	}
	if err != nil {
		return nil, true, fmt.Errorf("oidc: error evaluating group claim expression: %w", err)
	}
	return groups, true, nil
}

// UID evaluates the uid expression; mapped is false without one.
func (j *JWT) UID(ctx context.Context, c Claims) (uid string, mapped bool, err error) {
	if j.m.UID == nil {
		return "", false, nil
	}
	r, err := j.m.UID.EvalClaimMapping(ctx, c.v)
	if err != nil {
		return "", true, fmt.Errorf("oidc: error evaluating uid claim expression: %w", err)
	}
	if r.EvalResult.Type() != celgo.StringType {
		return "", true, errors.New("oidc: error evaluating uid claim expression: uid claim expression must return a string")
	}
	return r.EvalResult.Value().(string), true, nil
}

// Extra evaluates the extra mappings into extra; a key whose expression
// gives nothing is left out.
func (j *JWT) Extra(ctx context.Context, c Claims, extra map[string][]string) error {
	if j.m.Extra == nil {
		return nil
	}
	results, err := j.m.Extra.EvalClaimMappings(ctx, c.v)
	if err != nil {
		return err
	}
	for _, r := range results {
		mapping := r.ExpressionAccessor.(*authenticationcel.ExtraMappingExpression)
		values, err := stringList(r.EvalResult)
		if err != nil {
			return fmt.Errorf("oidc: error evaluating extra claim expression: %s: %w", mapping.Expression, err)
		}
		if len(values) > 0 {
			extra[mapping.Key] = values
		}
	}
	return nil
}

// ValidateClaims runs the claim validation rules written as expressions.
func (j *JWT) ValidateClaims(ctx context.Context, c Claims) error {
	if j.m.ClaimValidationRules == nil {
		return nil
	}
	results, err := j.m.ClaimValidationRules.EvalClaimMappings(ctx, c.v)
	if err == nil {
		err = allTrue(results)
	}
	if err != nil {
		return fmt.Errorf("oidc: error evaluating claim validation expression: %w", err)
	}
	return nil
}

// ValidateUser runs the user validation rules on the mapped user.
func (j *JWT) ValidateUser(ctx context.Context, u *engine.User) error {
	if j.m.UserValidationRules == nil {
		return nil
	}
	results, err := j.m.UserValidationRules.EvalUser(ctx, userValue(u))
	if err == nil {
		err = allTrue(results)
	}
	if err != nil {
		return fmt.Errorf("oidc: error evaluating user info validation rule: %w", err)
	}
	return nil
}

// allTrue fails on the first rule that is not true, with its message, in
// kube's words.
func allTrue(results []authenticationcel.EvaluationResult) error {
	for _, r := range results {
		if r.EvalResult.Type() != celgo.BoolType {
			return errors.New("validation expression must return a boolean")
		}
		if r.EvalResult.Value().(bool) {
			continue
		}
		var message string
		switch a := r.ExpressionAccessor.(type) {
		case *authenticationcel.ClaimValidationCondition:
			message = a.Message
		case *authenticationcel.UserValidationCondition:
			message = a.Message
		}
		return fmt.Errorf("validation expression '%s' failed: %s", r.ExpressionAccessor.GetExpression(), message)
	}
	return nil
}

// userValue is the user variable of user validation rules.
func userValue(u *engine.User) traits.Mapper {
	m := lazy.NewMapValue(types.NewObjectType("kubernetes.UserInfo"))
	fields := map[string]any{"username": u.Name, "uid": u.UID, "groups": u.Groups, "extra": u.Extra}
	for name, value := range fields {
		m.Append(name, func(*lazy.MapValue) ref.Val { return nativeToValueWithUnescape(value) })
	}
	return m
}

// stringList reads a string or a list of strings, as kube's
// convertCELValueToStringList: "" and [] are nothing, empty strings in a
// list are left out.
func stringList(val ref.Val) ([]string, error) {
	errType := errors.New("expression must return a string or a list of strings")
	switch val.Type().TypeName() {
	case celgo.StringType.TypeName():
		if s := val.Value().(string); s != "" {
			return []string{s}, nil
		}
		return nil, nil
	case celgo.NullType.TypeName():
		return nil, nil
	case celgo.ListType(nil).TypeName():
	default:
		return nil, errType
	}
	list, ok := val.(traits.Lister)
	if !ok {
		return nil, errType
	}
	var out []string
	for it := list.Iterator(); it.HasNext() == types.True; {
		s, ok := it.Next().Value().(string)
		if !ok {
			return nil, errType
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// What follows is kube's own (plugin/pkg/authenticator/token/oidc), copied
// because that package is not cheap to import: it brings go-oidc and the
// egress selector's dialers with it.

// nativeToValueWithUnescape converts a decoded JSON value to CEL, with
// kube's __dot__ escapes for keys at every depth.
func nativeToValueWithUnescape(value any) ref.Val {
	return unescapeWrapper(types.DefaultTypeAdapter.NativeToValue(value))
}

type unescapeMapper struct{ traits.Mapper }

func (m *unescapeMapper) Find(key ref.Val) (ref.Val, bool) {
	if name, ok := unescapedName(key); ok {
		key = name
	}
	value, ok := m.Mapper.Find(key)
	return unescapeWrapper(value), ok
}

type unescapeLister struct{ traits.Lister }

func (l *unescapeLister) Get(index ref.Val) ref.Val { return unescapeWrapper(l.Lister.Get(index)) }

func unescapeWrapper(value ref.Val) ref.Val {
	switch v := value.(type) {
	case traits.Mapper:
		return &unescapeMapper{Mapper: v}
	case traits.Lister:
		return &unescapeLister{Lister: v}
	}
	return value
}

func unescapedName(key ref.Val) (types.String, bool) {
	n, ok := key.(types.String)
	if !ok {
		return "", false
	}
	name, ok := apiservercel.Unescape(string(n))
	if !ok || name == string(n) {
		return "", false
	}
	return types.String(name), true
}
