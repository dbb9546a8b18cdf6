package main

import (
	"fmt"
	"io"
	"os"

	"github.com/dynapi/dynapi/engine/registry"
)

// check loads every definition and prints each problem with its file.
// It fails when there is any problem, so CI can gate on it.
func check(cfg Config, stdout io.Writer) error {
	if _, err := os.Stat(cfg.Schemas); err != nil {
		return fmt.Errorf("schemas directory: %w", err)
	}
	snap, problems := registry.Load(os.DirFS(cfg.Schemas))
	for _, p := range problems {
		fmt.Fprintf(stdout, "%s/%s\n", cfg.Schemas, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(stdout, "%d problem(s) found\n", len(problems))
		return errReported
	}
	fmt.Fprintf(stdout, "ok: %d definition(s) in %s\n", len(snap.Resources()), cfg.Schemas)
	return nil
}
