// Command dynapi serves Kubernetes-style REST APIs declared as schema files.
//
//	dynapi [serve] [flags]   serve the APIs in --schemas (the default)
//	dynapi check [flags]     load every definition, print each problem, exit 1 if any
//	dynapi migrate [flags]   rewrite objects stored in older versions in the storage version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, errReported) && !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "dynapi:", err)
		}
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// tuneGC applies the garbage collector's setting of cfg, if any.
func tuneGC(cfg Config, logger *slog.Logger) {
	if cfg.GCPercent != 0 {
		debug.SetGCPercent(cfg.GCPercent)
		logger.Info("garbage collector", "gogc", cfg.GCPercent)
	}
}

// errReported is returned by a subcommand that has already told the user.
var errReported = errors.New("reported")

// run dispatches to a subcommand; it is main without the process around it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "serve" || args[0] == "check" || args[0] == "migrate") {
		cmd, args = args[0], args[1:]
	} else if len(args) > 0 && args[0] == "help" {
		// "dynapi help [command]" is "dynapi [command] -h".
		if len(args) > 1 && (args[1] == "check" || args[1] == "migrate") {
			cmd = args[1]
		}
		args = []string{"-h"}
	}
	cfg, err := parseConfig(cmd, args, os.Getenv, stderr)
	if err != nil {
		return err
	}
	if cmd == "check" {
		return check(cfg, stdout)
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if cmd == "migrate" {
		return migrate(ctx, cfg, logger, stdout)
	}
	tuneGC(cfg, logger)
	m := &Main{Config: cfg, Logger: logger}
	if err := m.Run(ctx); err != nil {
		return errors.Join(err, m.Close())
	}
	<-ctx.Done()
	logger.Info("shutting down")
	return m.Close()
}
