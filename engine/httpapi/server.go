// Package httpapi serves the Kubernetes REST surface over the resource
// pipeline: fixed routes registered once, resources looked up per request in
// the current registry snapshot, errors rendered as Kubernetes Status objects.
// It is the only package that imports chi.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/authz"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// Snapshots hands out the current registry snapshot; *atomic.Pointer[registry.Snapshot]
// is one. A Snapshots that also says when it swaps its snapshot (Changed)
// ends the watches of resources a swap removes; one that tells how its
// snapshot was built (Problems, SchemaChecks) has them shown at
// /debug/definitions. *reload.Reloader does both.
type Snapshots interface {
	Load() *registry.Snapshot
}

// Options are what a Server needs besides the pipeline and the snapshots.
type Options struct {
	// Ready reports whether the storage is reachable, for /readyz; nil
	// reports it always reachable.
	Ready func(context.Context) error
	// Unavailable reports whether an error of the storage says that it
	// cannot be reached now (postgres.IsUnavailable): such a request is
	// answered 503 with Retry-After rather than 500. Nil: only a failed
	// Ready check says so.
	Unavailable func(error) bool
	// Logger logs what a client is not told; nil discards it.
	Logger *slog.Logger
	// Metrics is the registry the request metrics are registered on and
	// /metrics serves: the process's, shared with the storage's metrics.
	// Nil gives the Server a registry of its own. A registry takes the
	// metrics of one Server.
	Metrics *prometheus.Registry
	// Profiling serves Go's profiler under /debug/pprof/, as
	// kube-apiserver's --profiling does.
	Profiling bool
	// Authenticator finds who each request comes from; nil serves every
	// request as system:anonymous.
	Authenticator authn.Authenticator
	// Anonymous serves a request without credentials as system:anonymous
	// rather than refusing it with 401 (with an Authenticator only).
	Anonymous bool
	// AnonymousPaths, when set, are the only paths a request without
	// credentials is served anonymously for: the conditions of kube's
	// AuthenticationConfiguration anonymous section.
	AnonymousPaths []string
	// InsecureAnyHost serves, with no Authenticator, a request whose Host
	// is not a loopback name (which is refused otherwise, against DNS
	// rebinding): for a server told to listen beyond loopback without
	// authentication (--insecure-allow-any-address).
	InsecureAnyHost bool
	// Authorizer decides what each user may do; nil allows everything.
	Authorizer authz.Authorizer
	// MaxRequestsInflight and MaxMutatingInflight bound the requests
	// served at once (0: no bound), kube-apiserver's
	// --max-requests-inflight and --max-mutating-requests-inflight.
	MaxRequestsInflight int
	MaxMutatingInflight int
	// RequestTimeout bounds a request that is not a watch (0: no bound),
	// kube-apiserver's --request-timeout; one that takes longer is
	// answered 504 Timeout.
	RequestTimeout time.Duration
	// MinRequestTimeout is the shortest a watch without timeoutSeconds
	// lasts (it ends between once and twice it); 0 is 30 minutes.
	MinRequestTimeout time.Duration
	// BookmarkInterval is how often a watch that allows bookmarks gets
	// one; 0 is 10 seconds.
	BookmarkInterval time.Duration
	// Auditor records requests (--audit-policy-file, --audit-log-path);
	// nil records nothing.
	Auditor Auditor
	// ServiceAccountTokens serves the serviceaccounts/token subresource
	// and the issuer's OIDC discovery; nil serves neither (TokenReview
	// reviews with the Authenticator all the same).
	ServiceAccountTokens ServiceAccountTokens
	// JWKSURI is the jwks_uri of the discovery document
	// (--service-account-jwks-uri); empty: the issuer's /openid/v1/jwks.
	JWKSURI string
	// HealthChecks, when set, are the named checks of /healthz, /readyz
	// and (those Live) /livez beside ping and the database's, asked at
	// each request, since the composition root starts controllers after
	// the Server is built.
	HealthChecks func() []HealthCheck
}

// Server is the HTTP API. Build it with New.
type Server struct {
	service   *resource.Service
	snapshots Snapshots
	ready     func(context.Context) error
	down      func(error) bool // Options.Unavailable; may be nil
	logger    *slog.Logger
	router    chi.Router
	openapi   openapiCache
	// aggregated holds the aggregated discovery documents.
	aggregated aggregatedCache
	registry   *prometheus.Registry
	metrics    *requestMetrics
	profiling  bool
	authn      authn.Authenticator
	anonymous  bool
	// anonymousPaths limit anonymous to these paths; nil: every path.
	anonymousPaths []string
	anyHost        bool // Options.InsecureAnyHost
	authz          authz.Authorizer
	readOnly       *inflight
	mutating       *inflight
	auditor        Auditor
	tokens         ServiceAccountTokens // Options.ServiceAccountTokens; may be nil
	jwksURI        string
	checks         func() []HealthCheck // Options.HealthChecks; may be nil
	// authnFailures bounds the log lines of refused logins.
	authnFailures logLimiter
	// requestTimeout, minRequestTimeout and bookmarkInterval are Options'.
	requestTimeout, minRequestTimeout, bookmarkInterval time.Duration
	// draining is closed by EndWatches.
	draining    chan struct{}
	drainingSet sync.Once
}

// New returns a Server.
func New(service *resource.Service, snapshots Snapshots, opts Options) *Server {
	s := &Server{service: service, snapshots: snapshots, ready: opts.Ready, down: opts.Unavailable, logger: opts.Logger,
		router: chi.NewRouter(), registry: opts.Metrics, profiling: opts.Profiling,
		authn: opts.Authenticator, anonymous: opts.Anonymous, anonymousPaths: opts.AnonymousPaths, anyHost: opts.InsecureAnyHost, authz: opts.Authorizer,
		readOnly: newInflight(opts.MaxRequestsInflight), mutating: newInflight(opts.MaxMutatingInflight), auditor: opts.Auditor,
		tokens: opts.ServiceAccountTokens, jwksURI: opts.JWKSURI, checks: opts.HealthChecks, draining: make(chan struct{})}
	if s.ready == nil {
		s.ready = func(context.Context) error { return nil }
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.requestTimeout, s.minRequestTimeout = opts.RequestTimeout, opts.MinRequestTimeout
	if s.minRequestTimeout <= 0 {
		s.minRequestTimeout = defaultMinRequestTimeout
	}
	if s.bookmarkInterval = opts.BookmarkInterval; s.bookmarkInterval <= 0 {
		s.bookmarkInterval = defaultBookmarkInterval
	}
	if s.registry == nil {
		s.registry = prometheus.NewRegistry()
	}
	s.metrics = newRequestMetrics(s.registry)
	s.routes()
	return s
}

// EndWatches ends every watch, and every watch started after it at once,
// as the server shuts down: http.Server.Shutdown waits for the requests
// in flight, and a watch would hold it until its timeout. The client sees
// its stream end and watches again, elsewhere; other requests finish.
func (s *Server) EndWatches() {
	s.drainingSet.Do(func() { close(s.draining) })
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// routes registers every route once; which resources exist is decided per
// request against the snapshot, so a reload never touches the router.
//
// Every path goes through one chain, as in kube-apiserver: a panic becomes
// a 500; the request's attributes (requestInfo), its query among them,
// are resolved once; the request is counted and timed; then it is
// authenticated (a refused login audits itself, as kube's
// failed-authentication audit does) and audited, so that every refusal
// after that is recorded: a query that does not parse (decoded once by
// requestInfo, refused before anything reads it), what a web page could
// send to a server without authentication, impersonation, authorization,
// the limits. instrument comes first so that what they refuse is counted
// too.
func (s *Server) routes() {
	s.router.Use(s.recoverPanics, withRequestInfo, s.instrument, s.authenticate, s.audit,
		refuseBadQueries, s.guardOpen, s.impersonate, s.authorize, s.limit, s.withTimeout)
	s.debugRoutes()
	for _, endpoint := range []string{"healthz", "livez", "readyz"} {
		s.router.Get("/"+endpoint, s.handleHealth(endpoint))
		s.router.Get("/"+endpoint+"/*", s.handleHealthCheck(endpoint))
	}
	s.router.Get("/version", s.handleVersion)
	s.router.Get("/debug/definitions", s.handleDefinitions)
	// Discovery answers with and without a trailing slash, as
	// kube-apiserver does.
	s.router.Get("/api", s.handleCoreVersions)
	s.router.Get("/api/", s.handleCoreVersions)
	s.router.Get("/apis", s.handleGroupList)
	s.router.Get("/apis/", s.handleGroupList)
	s.router.Get("/apis/{group}", s.handleGroup)
	s.router.Get("/apis/{group}/", s.handleGroup)
	s.reviewRoutes()
	s.serviceAccountRoutes()
	s.router.Get("/openapi/v2", s.handleOpenAPIV2)
	s.router.Get("/openapi/v3", s.handleOpenAPIRoot)
	s.router.Get("/openapi/v3/*", s.handleOpenAPIGroupVersion)
	s.router.Handle("/api/{version}", s.resourceHandler(false))
	s.router.Handle("/api/{version}/*", s.resourceHandler(false))
	s.router.Handle("/apis/{group}/{version}", s.resourceHandler(true))
	s.router.Handle("/apis/{group}/{version}/*", s.resourceHandler(true))
	s.router.NotFound(func(w http.ResponseWriter, r *http.Request) { s.writeError(w, r, errNotFoundPath) })
	s.router.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) { s.writeError(w, r, errMethodNotAllowed(r)) })
}

// recoverPanics turns a panic into a 500 Status instead of a dropped
// connection, except for http.ErrAbortHandler, which aborts a response
// already under way.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.logger.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", p)
				s.writeError(w, r, errInternal)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
