package main

import (
	"fmt"
	"io"
	"os"

	"github.com/dynapi/dynapi/engine/admissionpolicy"
	"github.com/dynapi/dynapi/engine/prove"
	"github.com/dynapi/dynapi/engine/registry"
)

// check loads every definition and conversion rules file, proves the
// conversions of every kind with several versions (see package prove), and
// prints each problem with its file. It fails when there is any problem,
// so CI can gate on it. Warnings (rules for kinds not loaded, no
// conversions folder) are printed as serve logs them, and pass. When the
// load takes long, stderr tells how far it is.
func check(cfg Config, stdout, stderr io.Writer) error {
	if err := schemasDir(cfg); err != nil {
		return err
	}
	p := startProgress(cfg.ProgressInterval, func(done, total int) {
		fmt.Fprintf(stderr, "compiling definitions: %d of %d\n", done, total)
	})
	snap, problems := registry.LoadWith(os.DirFS(cfg.Schemas), os.DirFS(cfg.Conversions),
		registry.LoadOptions{CompileValidators: true, Progress: p.update, CheckAdmission: admissionpolicy.CheckStatic})
	for _, p := range problems {
		if p.Warning {
			fmt.Fprintf(stdout, "warning: %s\n", pathOf(cfg, p))
		} else {
			fmt.Fprintf(stdout, "%s\n", pathOf(cfg, p))
		}
	}
	failures, warnings := splitFailures(prove.Snapshot(snap))
	for _, f := range failures {
		fmt.Fprintf(stdout, "%s/%s\n", dirOf(cfg, f.Conversion), f)
	}
	printWarnings(stdout, cfg, warnings)
	if n := registry.Failures(problems) + len(failures); n > 0 {
		fmt.Fprintf(stdout, "%d problem(s) found\n", n)
		return errReported
	}
	fmt.Fprintf(stdout, "ok: %d definition(s) in %s and %d built in, %d with conversion rules in %s, every conversion with rules proved",
		len(snap.Resources())-builtins(snap), cfg.Schemas, builtins(snap), withRules(snap), cfg.Conversions)
	if len(warnings) > 0 {
		fmt.Fprintf(stdout, "; %d warning(s) for kinds without rules", len(warnings))
	}
	if n := len(problems) - registry.Failures(problems); n > 0 {
		fmt.Fprintf(stdout, "; %d warning(s) for conversion rules", n)
	}
	fmt.Fprintln(stdout)
	return nil
}

// warningsPerFile is how many of a file's warnings check prints.
const warningsPerFile = 5

// printWarnings prints the first warnings of each file, and how many more
// there are: a kind converted by a webhook in Kubernetes can have hundreds.
func printWarnings(stdout io.Writer, cfg Config, warnings []prove.Failure) {
	seen := make(map[string]int)
	for _, f := range warnings {
		seen[f.File]++
		switch n := seen[f.File]; {
		case n <= warningsPerFile:
			fmt.Fprintf(stdout, "warning: %s/%s\n", dirOf(cfg, f.Conversion), f)
		case n == warningsPerFile+1:
			more := 0
			for _, g := range warnings {
				if g.File == f.File {
					more++
				}
			}
			fmt.Fprintf(stdout, "warning: %s/%s: %d more like these (no conversion rules: its versions convert by apiVersion alone, as with kube-apiserver's conversion None)\n",
				dirOf(cfg, f.Conversion), f.File, more-warningsPerFile)
		}
	}
}

// splitFailures separates the proof's failures for kinds with a rules
// file, which check refuses, from those of kinds without one, which it
// only reports. Why: a definition without rules converts by apiVersion
// alone, as kube-apiserver's conversion strategy None does, and serve
// serves it so; published CustomResourceDefinitions (Gateway API's
// experimental channel) rely on that, and check must agree with serve.
func splitFailures(all []prove.Failure) (failures, warnings []prove.Failure) {
	for _, f := range all {
		if f.Conversion {
			failures = append(failures, f)
		} else {
			warnings = append(warnings, f)
		}
	}
	return failures, warnings
}

// schemasDir says whether the schemas folder is missing: a command that
// reads it once cannot wait for it to appear. A missing conversions
// folder is no rules, a warning, as serve says.
func schemasDir(cfg Config) error {
	if _, err := os.Stat(cfg.Schemas); err != nil {
		return fmt.Errorf("schemas directory: %w", err)
	}
	return nil
}

// pathOf renders a problem with its file's path as the user gave it
// ("./conversions: …" for the folder itself).
func pathOf(cfg Config, p registry.Problem) string {
	if p.File == "." {
		return dirOf(cfg, p.Conversion) + ": " + p.Reason
	}
	return dirOf(cfg, p.Conversion) + "/" + p.String()
}

// dirOf is the folder a problem's file is in.
func dirOf(cfg Config, conversion bool) string {
	if conversion {
		return cfg.Conversions
	}
	return cfg.Schemas
}

func withRules(snap *registry.Snapshot) int {
	n := 0
	for _, r := range snap.Resources() {
		if r.Conversion != nil {
			n++
		}
	}
	return n
}

// builtins counts the built-in definitions a snapshot serves.
func builtins(snap *registry.Snapshot) int {
	n := 0
	for _, r := range snap.Resources() {
		if registry.IsBuiltinFile(r.File) {
			n++
		}
	}
	return n
}
