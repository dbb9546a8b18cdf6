package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/kinds/conversionrules"
	"github.com/dynapi/dynapi/engine/kinds/crd"
	"github.com/dynapi/dynapi/engine/pgserver"
	"github.com/dynapi/dynapi/engine/reload"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/storagemigration"
)

// migrate rewrites the objects of every kind that are stored in an older
// version into the kind's storage version, and reports what each version
// held. The kinds are those the server would serve: from the definition
// files and from the CustomResourceDefinitions stored through the API. It
// is safe while servers run (each rewrite checks the resourceVersion it
// read) and can be run again after an interruption.
func migrate(ctx context.Context, cfg Config, logger *slog.Logger, stdout io.Writer) (err error) {
	if err := schemasDir(cfg); err != nil {
		return err
	}
	if cfg.DatabaseURL == "" {
		if url, ok := pgserver.Running(cfg.DataDir); ok {
			// A server's private PostgreSQL: a second cannot start on its
			// data, and migrating beside the server is safe.
			logger.Info("using the private PostgreSQL of the running server", "dataDir", cfg.DataDir)
			cfg.DatabaseURL = url
		}
	}
	m := &Main{Config: cfg, Logger: logger}
	defer func() { err = errors.Join(err, m.Close()) }()
	if err := m.openDatabase(ctx); err != nil {
		return err
	}
	// Refused definitions are logged by the reloader: their objects are
	// not migrated.
	defs := reload.New(cfg.Schemas, cfg.Conversions, reload.Options{Logger: logger, Progress: logProgress(cfg, logger)})
	if err := defs.Reload(); err != nil {
		return err
	}
	// Each rewrite goes through the pipeline, with the built-in kinds'
	// strategies, as a StorageVersionMigration's does on a server; the
	// kinds and the rules stored through the API convert as serve converts
	// them: rows of a kind whose rules are a ConversionRules object would
	// otherwise be rewritten by apiVersion alone.
	service := resource.New(m.store)
	controlplane.Register(service)
	if err := crd.New(service, defs, logger, crd.Options{}).Sync(ctx); err != nil {
		return err
	}
	if err := conversionrules.New(service, defs, logger).Sync(ctx); err != nil {
		return err
	}
	for _, res := range defs.Load().Resources() {
		report, err := storagemigration.Run(ctx, service, res, storagemigration.Options{Batch: cfg.MigrateBatch})
		if err != nil {
			return fmt.Errorf("migrate %s: %w", res.GroupResource(), err)
		}
		fmt.Fprintln(stdout, describeMigration(report, res.StorageVersion))
	}
	return nil
}

// describeMigration renders one line per resource:
// "pipes.plumbing.example.com: stored in v1=3 v2=10; rewrote 3 into v2, skipped 0".
func describeMigration(r storagemigration.Report, storage string) string {
	var held []string
	for _, v := range r.StoredVersions() {
		held = append(held, fmt.Sprintf("%s=%d", v, r.Before[v]))
	}
	if len(held) == 0 {
		return fmt.Sprintf("%s: no objects", r.Resource)
	}
	return fmt.Sprintf("%s: stored in %s; rewrote %d into %s, skipped %d",
		r.Resource, strings.Join(held, " "), r.Rewritten, storage, r.Skipped)
}
