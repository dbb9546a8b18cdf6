package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// migrate rewrites the objects of every kind that are stored in an older
// version into the kind's storage version, and reports what each version
// held. It is safe while servers run (each rewrite checks the
// resourceVersion it read) and can be run again after an interruption.
func migrate(ctx context.Context, cfg Config, logger *slog.Logger, stdout io.Writer) (err error) {
	if err := definitionDirs(cfg); err != nil {
		return err
	}
	snap, problems := registry.Load(os.DirFS(cfg.Schemas), os.DirFS(cfg.Conversions))
	for _, p := range problems {
		logger.Warn("definition refused; its objects are not migrated", "file", p.File, "reason", p.Reason)
	}
	m := &Main{Config: cfg, Logger: logger}
	defer func() { err = errors.Join(err, m.Close()) }()
	if err := m.openDatabase(ctx); err != nil {
		return err
	}
	service := resource.New(m.store)
	for _, res := range snap.Resources() {
		report, err := service.Migrate(ctx, res, cfg.MigrateBatch)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", res.GroupResource(), err)
		}
		fmt.Fprintln(stdout, describeMigration(report, res.StorageVersion))
	}
	return nil
}

// describeMigration renders one line per resource:
// "pipes.plumbing.example.com: stored in v1=3 v2=10; rewrote 3 into v2, skipped 0".
func describeMigration(r resource.MigrateReport, storage string) string {
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
