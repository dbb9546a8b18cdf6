package httpapi

import (
	"net"
	"net/http"
	"strings"

	"github.com/dynapi/dynapi/engine"
)

// guardOpen refuses, on a server with no authenticator, what a web page
// could make a browser on the same machine send to it. Such a server
// serves everyone as an anonymous admin and relies on listening on
// loopback only; two things would let a page in the user's browser past
// that:
//
//   - DNS rebinding: a page of evil.example whose name then resolves to
//     127.0.0.1 is the same origin as the server for the browser, and
//     reads and writes everything. Its requests carry Host: evil.example,
//     so only loopback host names are served (unless Options.InsecureAnyHost).
//   - A POST without a Content-Type, which any page may send to any
//     address with no CORS preflight, and whose body would be decoded as
//     JSON: a POST with a body must name its media type. Other methods
//     need a preflight, which is never granted, and keep kube's reading
//     of a missing Content-Type as JSON, which client-go's scale client
//     (kubectl scale, a PUT) relies on. A page can send only the simple
//     text/plain, form and multipart types otherwise, which no handler
//     decodes.
//
// With an authenticator a page's request carries no credentials (a
// browser adds no bearer token of its own) and nothing changes here: a
// missing Content-Type is JSON, as in kube-apiserver, which shares the
// one exception, a client certificate the browser presents by itself.
func (s *Server) guardOpen(next http.Handler) http.Handler {
	if s.authn != nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.anyHost && !loopbackHost(r.Host) {
			s.writeError(w, r, foreignHostError(r.Host))
			return
		}
		if r.Method == http.MethodPost && r.ContentLength != 0 && strings.TrimSpace(r.Header.Get("Content-Type")) == "" {
			s.writeError(w, r, errNoContentType)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names this machine's
// loopback: localhost, 127.0.0.0/8 or ::1, with or without a port. An
// empty Host (HTTP/1.0) is let through: browsers always send one.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" || strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// foreignHostError refuses a Host that is not a loopback name.
func foreignHostError(host string) *engine.Error {
	return engine.Errorf(engine.CodeForbidden, "host %q is not served: without authentication, dynapi serves only loopback "+
		"host names (localhost, 127.0.0.1, [::1]), so that no web page can reach it through DNS rebinding; configure "+
		"authentication (--token-auth-file, --client-ca-file, --oidc-issuer-url or --authentication-config) to serve other names", host)
}

// errNoContentType refuses a POST whose body names no media type.
var errNoContentType = engine.Errorf(engine.CodeUnsupportedMediaType, "the POST has a body but no Content-Type: "+
	"without authentication, dynapi refuses it, since any web page can make a browser send one; "+
	"send Content-Type: application/json (or application/yaml)")
