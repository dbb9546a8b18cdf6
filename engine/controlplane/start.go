package controlplane

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/dynapi/dynapi/engine/conversionwebhook"
	"github.com/dynapi/dynapi/engine/gc"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/kinds/namespace"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/webhook"
)

// Config is what Start wires together: every part of `dynapi serve`, each
// an explicit option. What the storage can do besides engine.Store is
// named here too (Collect, FieldIndexes, HTTP.Ready), never found by a
// type assertion.
type Config struct {
	// Service is the pipeline over the store; Start registers the
	// built-in kinds' strategies with it.
	Service *resource.Service
	Logger  *slog.Logger
	// Files, when set, are the definition files served: Start loads them,
	// follows them until Close, and serves the CustomResourceDefinitions
	// created through the API beside them.
	Files *Files
	// Snapshots, when Files is nil, are the definitions served, as their
	// owner swaps them (tests); no CustomResourceDefinition is served.
	Snapshots httpapi.Snapshots
	// HTTP are the HTTP API's options. Start sets its Authorizer with
	// RBAC, and its Logger to Logger when nil; its Metrics registry, when
	// set, also receives the reloader's metrics.
	HTTP httpapi.Options
	// RBAC, when set, authorizes requests with the Roles and bindings
	// stored through the API (kube's --authorization-mode=RBAC); nil:
	// every request is allowed.
	RBAC *RBAC
	// Collect is what the garbage collector of ownerReferences queries
	// (the postgres Store); nil: no collector.
	Collect gc.Store
	// FieldIndexes makes the storage's indexes of the selectable fields
	// (the postgres Store), in the background; nil: none are made.
	FieldIndexes FieldIndexer
	// NamespaceRecheck is how often the namespace finalizer looks for
	// namespaces marked through other processes (and the keeper of
	// namespace contents for namespaces created through them), GCRecheck
	// how often the garbage collector looks for work done through them,
	// and MigrationRecheck how often the storage version migrations are
	// looked at for those created through them; 0: every 10 seconds.
	NamespaceRecheck, GCRecheck, MigrationRecheck time.Duration
	// MigrationBatch is how many objects a StorageVersionMigration reads
	// and rewrites per page, its status updated after each (0: 500).
	MigrationBatch int64
	// Webhooks is the one client that conversion and admission webhooks
	// are called with (its service resolver, transports and metrics);
	// nil: a client with kube's DNS form of service addresses and no
	// metrics.
	Webhooks *webhook.Client
	// Serving, when set, is where Start listens and serves the API; nil:
	// the caller serves API itself (a test's httptest.Server).
	Serving *Serving
	// ServiceAccounts, when set, issues and authenticates service-account
	// tokens (TokenRequest, the authenticator, OIDC discovery); nil:
	// none are issued.
	ServiceAccounts *ServiceAccounts
	// RootCA, when set, is the PEM CA bundle published in every namespace
	// as the kube-root-ca.crt ConfigMap, for clients to verify the server.
	RootCA []byte
	// AuthenticationConfig, when set, is kube's --authentication-config
	// file: its JWT issuers join the authenticator chain, its anonymous
	// section sets HTTP.Anonymous, and a change to it takes effect without
	// a restart (see authnconfig).
	AuthenticationConfig string
}

// ControlPlane is a wired, running API: the one wiring that cmd/dynapi
// serves and the tests start, so that a change to it reaches both.
type ControlPlane struct {
	// API serves the HTTP API.
	API *httpapi.Server

	snapshots httpapi.Snapshots
	indexer   *fieldIndexer                  // nil without Config.FieldIndexes
	api       atomic.Pointer[httpapi.Server] // API, once built: a swap prepares its documents
	release   afterBurst                     // returns the memory of definition changes
	openapi   afterBurst                     // prepares the OpenAPI documents of definition changes
	serving   *serving                       // nil without Config.Serving
	stops     []func()
	// webhooks calls conversion and admission webhooks: one client, so
	// that both share transports, service resolution and metrics.
	webhooks *webhook.Client
	// conversions converts by conversion webhooks through webhooks.
	conversions *conversionwebhook.Converter
	// policies are the admission policies, once built: a swap hands them
	// the policies of the definition files.
	policies atomic.Pointer[policies]
	// health are the checks of the health endpoints.
	health health
}

// Start starts everything Config names, in the order `dynapi serve`
// needs: the definitions (loaded when it returns) and the field indexes
// that follow them, the strategies, the garbage collector, the stored
// CustomResourceDefinitions (served when it returns) and ConversionRules
// (converting when it returns), the system namespaces, their finalizer and
// what every namespace holds (the default ServiceAccount,
// kube-root-ca.crt), the storage version migrations, the HTTP API, the
// RBAC bootstrap roles
// and index (listed when it returns), the admission webhooks (listed
// when it returns), the OpenAPI documents (built when
// it returns), and the listener. Close ends what it started; on an
// error, Start has ended it already. Errors: those of listing the
// definitions, of creating the namespace and the RBAC objects, and of
// listening.
func Start(ctx context.Context, cfg Config) (*ControlPlane, error) {
	c := &ControlPlane{snapshots: cfg.Snapshots, webhooks: cfg.Webhooks}
	c.release.run, c.openapi.run = debug.FreeOSMemory, c.prepareOpenAPI
	if c.webhooks == nil {
		c.webhooks = webhook.New(webhook.Options{})
	}
	if err := c.start(ctx, cfg); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

// start is Start, leaving c to be closed on an error.
func (c *ControlPlane) start(ctx context.Context, cfg Config) error {
	loaded := make(chan struct{})
	c.health.loaded(loaded)
	if cfg.FieldIndexes != nil {
		c.indexer = newFieldIndexer(cfg.FieldIndexes, cfg.Logger)
		c.goController(ctx, "field-indexes", c.indexer.run)
	}
	c.startConversionWebhooks(cfg) // before anything reads or writes through the service
	defs := c.startDefinitions(ctx, cfg)
	kinds := Register(cfg.Service)
	contents := namespace.NewContents(cfg.Service, namespaceContents(cfg.RootCA)...)
	authz := c.newRBAC(cfg) // before anything writes through the service
	// CEL's `authorizer`, in policies and in webhooks' matchConditions.
	celAuthz := authorizerOf(cfg, authz)
	policies := c.newPolicies(cfg, celAuthz, kinds.PolicyStatus.Poke)
	webhooks := c.newAdmission(cfg, policies, celAuthz)
	var collector *gc.Collector
	if cfg.Collect != nil {
		collector = gc.New(cfg.Service, cfg.Collect, c.snapshots) // sees every delete through the service
	}
	if err := c.serveStoredDefinitions(ctx, cfg, defs); err != nil {
		return err
	}
	if err := c.serveStoredConversions(ctx, cfg, defs); err != nil {
		return err
	}
	close(loaded)
	if err := ensureNamespaces(ctx, cfg, c.snapshots.Load()); err != nil {
		return err
	}
	nsRecheck, gcRecheck, svmRecheck := orDefault(cfg.NamespaceRecheck), orDefault(cfg.GCRecheck), orDefault(cfg.MigrationRecheck)
	c.goController(ctx, "namespace-controller", func(ctx context.Context) { kinds.Namespaces.Run(ctx, c.snapshots, nsRecheck, cfg.Logger) })
	c.goController(ctx, "namespace-contents", func(ctx context.Context) { contents.Run(ctx, c.snapshots, nsRecheck, cfg.Logger) })
	kinds.Migrations.Batch = cfg.MigrationBatch
	c.goController(ctx, "storage-version-migrator", func(ctx context.Context) { kinds.Migrations.Run(ctx, c.snapshots, svmRecheck, cfg.Logger) })
	c.goController(ctx, "validatingadmissionpolicy-status", func(ctx context.Context) {
		kinds.PolicyStatus.Run(ctx, c.snapshots, policyStatusRecheck, cfg.Logger)
	})
	if collector != nil {
		c.goController(ctx, "garbage-collector", func(ctx context.Context) { collector.Run(ctx, gcRecheck, cfg.Logger) })
	}
	if err := c.startAuthenticationConfig(ctx, &cfg); err != nil {
		return err
	}
	if err := c.startServiceAccounts(ctx, &cfg); err != nil {
		return err
	}
	c.API = c.newAPI(cfg, authz)
	if err := c.startRBAC(ctx, cfg, authz); err != nil {
		return err
	}
	if err := c.startPolicies(ctx, policies); err != nil {
		return err
	}
	if err := c.startAdmission(ctx, webhooks); err != nil {
		return err
	}
	c.prepare(cfg.Logger)
	return c.serve(cfg)
}

// newAPI builds the HTTP API of cfg, authorized by authz when set.
func (c *ControlPlane) newAPI(cfg Config, authz *rbacIndex) *httpapi.Server {
	if cfg.HTTP.Logger == nil {
		cfg.HTTP.Logger = cfg.Logger
	}
	if authz != nil {
		cfg.HTTP.Authorizer = authz
	}
	cfg.HTTP.HealthChecks = c.health.list
	api := httpapi.New(cfg.Service, c.snapshots, cfg.HTTP)
	c.api.Store(api)
	return api
}

// prepare builds the OpenAPI documents before serving, so that no client
// waits for them (a swap meanwhile prepares them again), and returns the
// memory loading the definitions left.
func (c *ControlPlane) prepare(logger *slog.Logger) {
	if err := c.API.BuildOpenAPI(); err != nil {
		logger.Warn("OpenAPI documents not built", "err", err)
	}
	// Loading the definitions left garbage of several times what they
	// hold (see releaser): returned before serving, not some time after.
	debug.FreeOSMemory()
	// The documents are packed, and the v2 document rendered in protobuf
	// (which few clients read), while serving; the garbage of that work
	// is returned after.
	c.API.PrepareOpenAPI(c.release.changed)
}

// swapped hands a new snapshot to the work that follows it, without
// waiting: the field indexes and the admission policies now; the OpenAPI
// documents and the return of the memory the change left behind once
// the burst it belongs to is over (see afterBurst).
func (c *ControlPlane) swapped(snap *registry.Snapshot) {
	if c.indexer != nil {
		c.indexer.swapped(snap)
	}
	if p := c.policies.Load(); p != nil {
		p.filesChanged(snap)
	}
	c.openapi.changed()
	c.release.changed()
}

// prepareOpenAPI builds the OpenAPI documents of the current snapshot in
// the background, then returns the memory that left.
func (c *ControlPlane) prepareOpenAPI() {
	if api := c.api.Load(); api != nil {
		api.PrepareOpenAPI(c.release.changed)
	}
}

// orDefault is d, or 10 seconds when d is 0.
func orDefault(d time.Duration) time.Duration {
	if d == 0 {
		return 10 * time.Second
	}
	return d
}

// Go runs f beside the control plane's own background work, until Close.
func (c *ControlPlane) Go(ctx context.Context, f func(context.Context)) {
	c.stops = append(c.stops, runUntilStopped(ctx, f))
}

// Close stops serving, letting the requests in flight finish (up to
// ShutdownTimeout), then stops the background work Start started and
// waits for it. Errors: those of the shutdown and of serving.
func (c *ControlPlane) Close() error {
	err := c.serving.close()
	for _, stop := range c.stops {
		stop()
	}
	c.openapi.stop()
	c.release.stop()
	return err
}

// runUntilStopped runs f in a goroutine; stop cancels its context and
// waits for it to return.
func runUntilStopped(ctx context.Context, f func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
