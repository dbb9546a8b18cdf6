package controlplane

import (
	"context"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admissionpolicy"
	"github.com/dynapi/dynapi/engine/kinds/conversionrules"
	"github.com/dynapi/dynapi/engine/kinds/crd"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/reload"
	"github.com/dynapi/dynapi/engine/resource"
)

// Files are the definition files a control plane serves and follows.
type Files struct {
	// Schemas and Conversions are the folders of the definitions and of
	// their conversion rules ("": none).
	Schemas, Conversions string
	// RuntimeConfig switches API groups and versions off (kube's
	// --runtime-config).
	RuntimeConfig registry.RuntimeConfig
	// Policy says what a change that would break stored objects does.
	Policy reload.Policy
	// Progress, when set, is told how far each load's compiling is (see
	// registry.LoadOptions.Progress).
	Progress func(done, total int)
	// DeletionProtection refuses to delete a definition created through
	// the API while objects of its kind are stored (crd.Options).
	DeletionProtection bool
}

// startDefinitions loads cfg.Files and follows them until Close, and
// returns the reloader, which also serves the definitions created
// through the API; nil, with cfg.Snapshots served as they are, without
// Files. A folder that cannot be read is logged, not fatal: what could be
// read serves, and the folder is watched for when it comes back.
func (c *ControlPlane) startDefinitions(ctx context.Context, cfg Config) *reload.Reloader {
	if cfg.Files == nil {
		if c.indexer != nil {
			c.indexer.swapped(c.snapshots.Load())
		}
		return nil
	}
	opts := reload.Options{Logger: cfg.Logger, RuntimeConfig: cfg.Files.RuntimeConfig, Policy: cfg.Files.Policy,
		Preview: reload.StoredObjects{Store: storedLister{cfg.Service}}.Check, OnSwap: c.swapped, Progress: cfg.Files.Progress,
		Webhooks: c.conversions, CheckAdmission: admissionpolicy.CheckStatic}
	if cfg.HTTP.Metrics != nil {
		// Not a nil *Registry in the interface: a Registerer that is not
		// nil but panics when used.
		opts.Registerer = cfg.HTTP.Metrics
	}
	reloader := reload.New(cfg.Files.Schemas, cfg.Files.Conversions, opts)
	c.snapshots = reloader
	if err := reloader.Reload(); err != nil {
		cfg.Logger.Warn("definitions", "err", err)
	}
	c.goController(ctx, "definitions-watcher", func(ctx context.Context) {
		if err := reloader.Run(ctx); err != nil {
			cfg.Logger.Error("definition files are not watched: changes need a restart", "err", err)
		}
	})
	return reloader
}

// serveStoredDefinitions serves the CustomResourceDefinitions stored
// through the API, listed before it returns, and follows them until
// Close; nothing without a reloader (defs nil). Errors: Sync's.
func (c *ControlPlane) serveStoredDefinitions(ctx context.Context, cfg Config, defs *reload.Reloader) error {
	if defs == nil {
		return nil
	}
	controller := crd.New(cfg.Service, defs, cfg.Logger, crd.Options{DeletionProtection: cfg.Files.DeletionProtection, PublishFiles: true})
	if err := controller.Sync(ctx); err != nil {
		return err
	}
	c.goController(ctx, "crd-controller", controller.Run)
	return nil
}

// serveStoredConversions serves the ConversionRules stored through the
// API, listed and handed to defs before it returns (after the stored
// definitions, whose kinds they may convert), and follows them until
// Close; nothing without a reloader (defs nil). Errors: Sync's.
func (c *ControlPlane) serveStoredConversions(ctx context.Context, cfg Config, defs *reload.Reloader) error {
	if defs == nil {
		return nil
	}
	controller := conversionrules.New(cfg.Service, defs, cfg.Logger)
	if err := controller.Sync(ctx); err != nil {
		return err
	}
	c.Go(ctx, controller.Run)
	cleaner := crd.NewCleaner(cfg.Service, defs, cfg.Logger)
	c.Go(ctx, func(ctx context.Context) { cleaner.Run(ctx, crdRecheck) })
	return nil
}

// crdRecheck is how often the Cleaner looks for definitions being
// deleted, through whichever process they were deleted.
const crdRecheck = time.Second

// storedLister is the service's stored objects as reload.StoredObjects
// reads them.
type storedLister struct{ service *resource.Service }

func (l storedLister) List(ctx context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error) {
	return l.service.ListStored(ctx, opts, each)
}
