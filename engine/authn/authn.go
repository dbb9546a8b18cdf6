// Package authn authenticates requests as kube-apiserver does: static
// bearer tokens from a CSV file, TLS client certificates signed by a
// client CA, and JWTs of OIDC issuers (the --oidc-* flags or kube's
// AuthenticationConfiguration). Each authenticator tells who a
// request comes from, or that it cannot tell; Union tries them in turn and
// puts every user it finds in system:authenticated.
package authn

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/dynapi/dynapi/engine"
)

// Authenticator finds who a request comes from. ok is false when the
// request carries no credentials this authenticator reads; err is set when
// it carries some that are wrong (an unknown token, an expired JWT).
type Authenticator interface {
	Authenticate(r *http.Request) (u *engine.User, ok bool, err error)
}

// Union tries authenticators in order; the first that finds a user wins.
type Union []Authenticator

var _ Authenticator = Union(nil)

// errInvalid is what a request with credentials no authenticator accepts
// is refused with; the reasons are for the log.
var errInvalid = errors.New("invalid credentials")

// Authenticate returns the first user found, in system:authenticated.
// It fails when none is found and some authenticator saw wrong credentials.
func (u Union) Authenticate(r *http.Request) (*engine.User, bool, error) {
	var errs []error
	for _, a := range u {
		user, ok, err := a.Authenticate(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return withAuthenticated(user), true, nil
		}
	}
	if len(errs) > 0 {
		return nil, false, errors.Join(append([]error{errInvalid}, errs...)...)
	}
	return nil, false, nil
}

// withAuthenticated adds system:authenticated to u's groups, as kube's
// authenticated group adder does, unless u has it (or is anonymous).
func withAuthenticated(u *engine.User) *engine.User {
	if u.InGroup(engine.GroupAuthenticated) || u.Name == engine.UserAnonymous {
		return u
	}
	out := *u
	out.Groups = append(append(make([]string, 0, len(u.Groups)+1), u.Groups...), engine.GroupAuthenticated)
	return &out
}

// Anonymous is the user of a request with no credentials, when anonymous
// requests are allowed.
func Anonymous() *engine.User {
	return &engine.User{Name: engine.UserAnonymous, Groups: []string{engine.GroupUnauthenticated}}
}

// Bearer returns the token of an "Authorization: Bearer" header.
func Bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// audiencesKey is the context key of the audiences a token is checked for.
type audiencesKey struct{}

// WithAudiences returns ctx asking authenticators that read audiences
// (service-account tokens) to accept a token for one of audiences rather
// than for the API's: a TokenReview's spec.audiences, as kube's
// authenticator.WithAudiences.
func WithAudiences(ctx context.Context, audiences []string) context.Context {
	return context.WithValue(ctx, audiencesKey{}, audiences)
}

// AudiencesFrom returns the audiences ctx asks for; nil: the API's.
func AudiencesFrom(ctx context.Context) []string {
	auds, _ := ctx.Value(audiencesKey{}).([]string)
	return auds
}
