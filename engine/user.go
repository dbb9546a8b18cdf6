package engine

import "context"

// User is who a request comes from, as authentication found it: kube's
// user.Info.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// The groups and names kube-apiserver gives users it did not, or did,
// authenticate, and the group allowed everything.
const (
	GroupAuthenticated   = "system:authenticated"
	GroupUnauthenticated = "system:unauthenticated"
	GroupMasters         = "system:masters"
	UserAnonymous        = "system:anonymous"
)

// InGroup reports whether u is in group.
func (u *User) InGroup(group string) bool {
	for _, g := range u.Groups {
		if g == group {
			return true
		}
	}
	return false
}

// userKey is the context key of the *User.
type userKey struct{}

// WithUser returns ctx carrying u: the HTTP layer sets it once a request
// is authenticated, and stages that decide by who asks (the RBAC
// escalation check) read it with UserFrom.
func WithUser(ctx context.Context, u *User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user ctx carries; ok is false for work the server
// does on its own behalf (and for a server with no authentication).
func UserFrom(ctx context.Context) (u *User, ok bool) {
	u, ok = ctx.Value(userKey{}).(*User)
	return u, ok && u != nil
}
