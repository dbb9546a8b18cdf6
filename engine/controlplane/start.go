package controlplane

import (
	"context"
	"log/slog"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/gc"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/kinds/crd"
	"github.com/dynapi/dynapi/engine/kinds/namespace"
	"github.com/dynapi/dynapi/engine/kinds/roles"
	"github.com/dynapi/dynapi/engine/resource"
)

// Config is what Start wires together.
type Config struct {
	// Service is the pipeline over the store; Start registers the
	// built-in kinds' strategies with it.
	Service *resource.Service
	// Snapshots are the definitions served. When they are also
	// crd.Definitions (the reloader), CustomResourceDefinitions created
	// through the API are served too.
	Snapshots httpapi.Snapshots
	Logger    *slog.Logger
	// HTTP are the HTTP API's options.
	HTTP httpapi.Options
	// Escalation, when set (RBAC authorization), makes the RBAC kinds'
	// strategies refuse Roles and bindings that grant more than their
	// writer holds.
	Escalation roles.Escalation
	// Collect is what the garbage collector of ownerReferences queries
	// (the postgres Store); nil: no collector.
	Collect gc.Store
	// NamespaceRecheck is how often the namespace finalizer looks for
	// namespaces marked through other processes, and GCRecheck how often
	// the garbage collector looks for work done through them; 0: every
	// 10 seconds.
	NamespaceRecheck, GCRecheck time.Duration
}

// ControlPlane is a wired, running API: the one wiring that cmd/dynapi
// serves and the tests start, so that a change to it reaches both.
type ControlPlane struct {
	// API serves the HTTP API.
	API   *httpapi.Server
	stops []func()
}

// Start registers the strategies, starts the garbage collector, serves the stored
// CustomResourceDefinitions (those stored are served when it returns),
// creates the "default" namespace, starts the namespace finalizer and
// builds the HTTP API. Stop ends what it started. Errors: those of
// listing the definitions and of creating the namespace.
func Start(ctx context.Context, cfg Config) (*ControlPlane, error) {
	c := &ControlPlane{}
	namespaces := Register(cfg.Service)
	if cfg.Escalation != nil {
		roles.Guard(cfg.Service, cfg.Escalation) // before anything writes through the service
	}
	var collector *gc.Collector
	if cfg.Collect != nil {
		collector = gc.New(cfg.Service, cfg.Collect, cfg.Snapshots) // sees every delete through the service
	}
	if defs, ok := cfg.Snapshots.(crd.Definitions); ok {
		controller := crd.New(cfg.Service, defs, cfg.Logger)
		if err := controller.Sync(ctx); err != nil {
			return nil, err
		}
		c.stops = append(c.stops, runUntilStopped(ctx, controller.Run))
	}
	err := namespace.Ensure(ctx, cfg.Service, cfg.Snapshots.Load(), "default")
	if engine.ErrorCode(err) == engine.CodeNotFound {
		cfg.Logger.Warn("namespaced kinds cannot be used", "reason", err)
	} else if err != nil {
		c.Stop()
		return nil, err
	}
	nsRecheck, gcRecheck := orDefault(cfg.NamespaceRecheck), orDefault(cfg.GCRecheck)
	c.stops = append(c.stops, runUntilStopped(ctx, func(ctx context.Context) { namespaces.Run(ctx, cfg.Snapshots, nsRecheck, cfg.Logger) }))
	if collector != nil {
		c.stops = append(c.stops, runUntilStopped(ctx, func(ctx context.Context) { collector.Run(ctx, gcRecheck, cfg.Logger) }))
	}
	if cfg.HTTP.Logger == nil {
		cfg.HTTP.Logger = cfg.Logger
	}
	c.API = httpapi.New(cfg.Service, cfg.Snapshots, cfg.HTTP)
	return c, nil
}

// orDefault is d, or 10 seconds when d is 0.
func orDefault(d time.Duration) time.Duration {
	if d == 0 {
		return 10 * time.Second
	}
	return d
}

// Go runs f beside the control plane's own background work, until Stop.
func (c *ControlPlane) Go(ctx context.Context, f func(context.Context)) {
	c.stops = append(c.stops, runUntilStopped(ctx, f))
}

// Stop stops the background work Start started and waits for it.
func (c *ControlPlane) Stop() {
	for _, stop := range c.stops {
		stop()
	}
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
