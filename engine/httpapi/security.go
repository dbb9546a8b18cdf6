package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authz"
	"github.com/dynapi/dynapi/engine/connlimit"
)

// errUnauthorized is kube-apiserver's answer to a request it cannot
// authenticate.
var errUnauthorized = &engine.Error{Code: engine.CodeUnauthorized, Message: "Unauthorized"}

// anonymousUser is who a request without credentials is, when allowed.
var anonymousUser = &engine.User{Name: engine.UserAnonymous, Groups: []string{engine.GroupUnauthenticated}}

// authenticate puts the request's user in its context. A request without
// credentials is anonymous when anonymous requests are allowed (or no
// authenticator is configured), and refused with 401 otherwise; wrong
// credentials are always refused. The health endpoints stay open. A
// server with neither authenticator nor authorizer (a private one, on a
// loopback address) skips this stage.
func (s *Server) authenticate(next http.Handler) http.Handler {
	if s.authn == nil && s.authz == nil {
		return next
	}
	if s.authn == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(engine.WithUser(r.Context(), anonymousUser)))
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok, err := s.authn.Authenticate(r)
		switch {
		case ok:
			r.Header.Del("Authorization")        // as kube: no handler sees the credentials
			connlimit.Authenticated(r.Context()) // its connection is proven: see connlimit
		case openPath(r.URL.Path):
		case err == nil && s.anonymousAllowed(r.URL.Path):
			u = anonymousUser
		default:
			s.refuseUnauthenticated(w, r, err)
			return
		}
		if u != nil {
			requestInfoFrom(r).user = u.Name
			r = r.WithContext(engine.WithUser(r.Context(), u))
		}
		next.ServeHTTP(w, r)
	})
}

// anonymousAllowed reports whether a request for path may be served
// anonymously: as kube's anonymous authenticator, when enabled, for every
// path or, with conditions, for the paths they name exactly.
func (s *Server) anonymousAllowed(path string) bool {
	return s.anonymous && (s.anonymousPaths == nil || slices.Contains(s.anonymousPaths, path))
}

// authorize asks the authorizer whether the user may do what the request
// asks, and answers 403 when not. A watch is authorized once, at its start.
func (s *Server) authorize(next http.Handler) http.Handler {
	if s.authz == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if openPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		a := attributesOf(r)
		d, reason, err := s.authz.Authorize(r.Context(), a)
		if err != nil {
			s.logger.Warn("authorization failed", "path", r.URL.Path, "err", err)
		}
		if d != authz.DecisionAllow {
			s.writeError(w, r, authz.Forbidden(a, reason))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// attributesOf are the request's attributes for the authorizer.
func attributesOf(r *http.Request) authz.Attributes {
	info := requestInfoFrom(r)
	u, _ := engine.UserFrom(r.Context())
	name := info.Name
	if name == "" {
		name = info.SelectedName // a list of one named object, as kube authorizes it
	}
	return authz.Attributes{User: u, Verb: info.Verb, ResourceRequest: info.IsResourceRequest, Namespace: info.Namespace,
		APIGroup: info.APIGroup, APIVersion: info.APIVersion, Resource: info.Resource, Subresource: info.Subresource,
		Name: name, Path: info.Path}
}

// openPath reports whether a path is a health endpoint, served to anyone
// who can reach the port, as load balancers and kubelets probe them.
func openPath(p string) bool {
	for _, open := range [...]string{"/healthz", "/livez", "/readyz"} {
		if p == open || strings.HasPrefix(p, open+"/") {
			return true
		}
	}
	return false
}
