// Command dynapi-bench measures dynapi under load and compares it with
// PostgreSQL itself. It creates -n Widgets with -c concurrent clients, gets
// each, lists them all (whole, metadata only, and in pages), lists with a label selector
// matching 1%, updates each, times watch events from write to delivery on
// the writing server and on another, and deletes them all, printing ops/s
// and p50/p99 latency per phase, then the servers' resident memory. The
// same inserts, selects, updates and deletes run straight through pgx
// (postgres.Baseline) for the ratio dynapi/raw. On Linux it also reports the
// CPU time per operation of each phase and baseline, split into the tool,
// the dynapi servers and PostgreSQL (see cpu.go).
//
// With no flags it starts everything itself and removes it after: a private
// PostgreSQL with durable settings, and two dynapi processes built from this
// module on loopback ports. Run it from inside the module:
//
//	go run ./cmd/dynapi-bench [-n 10000] [-c 16] [-size 1200] [-phases ...] [-json]
//
// -readme README.md rewrites the README's figures table with the run's
// figures, beside DESIGN.md's Kubernetes figures (see readme.go).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/dynapi/dynapi/engine/postgres"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "dynapi-bench:", err)
		}
		os.Exit(1)
	}
}

// run is main without the process around it: it prints the report on
// stdout and progress on stderr, and fails if any operation failed.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		return err
	}
	rc, err := newRunContext(ctx, cfg)
	if err != nil {
		return err
	}
	cl, err := startCluster(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, cl.close()) }()
	b, err := newBench(cfg, cl, stderr)
	if err != nil {
		return err
	}
	b.report.Database = cl.describeDatabase()
	if cfg.Phases["raw"] && cl.databaseURL != "" {
		if b.raw, err = postgres.OpenBaseline(ctx, cl.databaseURL); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, b.raw.Close(context.WithoutCancel(ctx))) }()
	}
	if err := b.run(ctx); err != nil {
		return err
	}
	if len(cl.replicas) > 0 {
		if b.report.Routing, err = scrapeRouting(ctx, cl.urls()); err != nil {
			return err
		}
	}
	if err := b.write(stdout); err != nil {
		return err
	}
	if b.report.failures() > 0 {
		return errFailed
	}
	return b.updateReadme(rc)
}

// updateReadme rewrites -readme's figures table, if asked, with the load
// average at the end of the run beside the one at its start.
func (b *bench) updateReadme(rc runContext) error {
	if b.cfg.Readme == "" {
		return nil
	}
	rc.LoadEnd = loadAverage()
	return updateReadme(b.cfg.Readme, &b.report, rc)
}

// write prints the report as the flags ask.
func (b *bench) write(w io.Writer) error {
	if b.cfg.JSON {
		return b.report.writeJSON(w)
	}
	return b.report.writeTable(w)
}
