// Command dynapi serves Kubernetes-style REST APIs declared as schema files.
//
//	dynapi [serve] [flags]   serve the APIs in --schemas (the default)
//	dynapi check [flags]     load every definition, print each problem, exit 1 if any
//	dynapi migrate [flags]   rewrite objects stored in older versions in the storage version
//	dynapi version           print dynapi's version and the Kubernetes API version it serves
//	dynapi healthcheck       exit 0 if the server of --data-dir/kubeconfig is ready (/readyz)
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

	"k8s.io/klog/v2"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}

// exitCode tells the user of err, unless run did, and says how the
// process exits, as Go's and Kubernetes' commands do: 0 after the help
// (asked for, it goes to stdout), 2 for a command line that does not
// parse (one line and a hint, not the whole usage), 1 for anything else.
func exitCode(err error, stderr io.Writer) int {
	var usage *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "dynapi: %s\nRun '%s --help' for usage.\n", usage.msg, usage.command)
		return 2
	case errors.Is(err, errReported):
		return 1
	}
	fmt.Fprintln(stderr, "dynapi:", err)
	return 1
}

// tuneGC applies the garbage collector's setting of cfg, if any.
func tuneGC(cfg Config, logger *slog.Logger) {
	if cfg.GCPercent != 0 {
		debug.SetGCPercent(cfg.GCPercent)
		logger.Info("garbage collector", "gogc", cfg.GCPercent)
	}
}

// commandOf splits the command off args: serve when args name none.
// "dynapi help [command]" is "dynapi [command] --help".
func commandOf(args []string) (cmd string, rest []string) {
	if len(args) == 0 {
		return "serve", args
	}
	switch args[0] {
	case "serve", "check", "migrate", "version", "healthcheck":
		return args[0], args[1:]
	case "help":
		if len(args) > 1 && (args[1] == "serve" || args[1] == "check" || args[1] == "migrate" || args[1] == "healthcheck") {
			return args[1], []string{"--help"}
		}
		return "serve", []string{"--help"}
	}
	return "serve", args
}

// errReported is returned by a subcommand that has already told the user.
var errReported = errors.New("reported")

// run dispatches to a subcommand; it is main without the process around it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd, args := commandOf(args)
	if cmd == "version" {
		if len(args) > 0 {
			return &usageError{command: "dynapi version", msg: fmt.Sprintf("unexpected arguments: %v", args)}
		}
		return printVersion(stdout)
	}
	cfg, err := parseConfig(cmd, args, os.Getenv, stdout)
	if err != nil {
		return err
	}
	if cfg.Version {
		return printVersion(stdout)
	}
	if cmd == "check" {
		return check(cfg, stdout, stderr)
	}
	if cmd == "healthcheck" {
		return healthcheck(ctx, cfg, stdout)
	}
	logger := newLogger(cfg.Log, stderr)
	// Kubernetes' libraries (the FieldManager, apimachinery) log through
	// klog: into the server's log, in its format, not klog's own lines on
	// stderr beside it.
	klog.SetSlogLogger(logger)
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
