package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/reload"
)

// Config is everything dynapi reads from flags and the environment. It is
// the only place the environment is read.
type Config struct {
	Listen      string
	DatabaseURL string
	Schemas     string
	Conversions string
	DataDir     string
	TLSCertFile string
	TLSKeyFile  string
	Profiling   bool
	// EventRetention is how long the history of writes is kept for watches
	// and consistent paginated lists.
	EventRetention time.Duration
	// MigrateBatch is how many objects `dynapi migrate` reads per page.
	MigrateBatch int64
	// RuntimeConfig switches API groups and versions off, as
	// kube-apiserver's --runtime-config (see registry.ParseRuntimeConfig).
	RuntimeConfig string
	// SchemaChangePolicy is "report" or "refuse" (see reload.Policy).
	SchemaChangePolicy string
	// GCPercent tunes Go's garbage collector for serve
	// (debug.SetGCPercent); 0 leaves it as the GOGC environment variable
	// sets it.
	GCPercent int
}

// defaultGCPercent is serve's GOGC when the environment does not set it.
// Why: the live heap of a server is small (20–40 MiB: no copy of the
// data), so Go's default (collect whenever the heap doubles) collected
// several times a second under load. Measured at 30,000 creates with two
// processes: GOGC=100 5,150–5,200/s, 200 5,350–5,550/s, 400 no better
// than 200 within the noise. No memory limit: a soft limit below the live
// heap (80,000 objects of a namespace being deleted held 150 MiB, since
// cut) made the collector run without pause.
const defaultGCPercent = 200

// parseConfig reads flags for cmd; each flag falls back to an environment
// variable, then to its default.
func parseConfig(cmd string, args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	var c Config
	fs := flag.NewFlagSet("dynapi "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	fs.StringVar(&c.Schemas, "schemas", env("DYNAPI_SCHEMAS", "./schemas"), "directory of API definition files (env DYNAPI_SCHEMAS)")
	fs.StringVar(&c.Conversions, "conversions", env("DYNAPI_CONVERSIONS", "./conversions"), "directory of conversion rule files (env DYNAPI_CONVERSIONS)")
	if cmd == "serve" || cmd == "migrate" {
		fs.StringVar(&c.DatabaseURL, "database-url", env("DATABASE_URL", ""), "PostgreSQL URL; empty starts a private PostgreSQL in --data-dir (env DATABASE_URL)")
		fs.StringVar(&c.DataDir, "data-dir", env("DYNAPI_DATA_DIR", "./.dynapi"), "where the private PostgreSQL keeps its data (env DYNAPI_DATA_DIR)")
	}
	if cmd == "migrate" {
		fs.Int64Var(&c.MigrateBatch, "batch", 500, "objects read and rewritten per page")
	}
	if cmd == "serve" {
		fs.StringVar(&c.Listen, "listen", env("DYNAPI_LISTEN", "127.0.0.1:8080"), "address to serve on (env DYNAPI_LISTEN)")
		fs.StringVar(&c.TLSCertFile, "tls-cert-file", env("DYNAPI_TLS_CERT_FILE", ""), "serve HTTPS with this certificate (env DYNAPI_TLS_CERT_FILE)")
		fs.StringVar(&c.TLSKeyFile, "tls-key-file", env("DYNAPI_TLS_KEY_FILE", ""), "key of --tls-cert-file (env DYNAPI_TLS_KEY_FILE)")
		fs.DurationVar(&c.EventRetention, "event-retention", envDuration(getenv, "DYNAPI_EVENT_RETENTION", 5*time.Minute),
			"how long the history of writes is kept for watches and paginated lists (env DYNAPI_EVENT_RETENTION)")
		fs.BoolVar(&c.Profiling, "profiling", env("DYNAPI_PROFILING", "") == "true", "serve Go's profiler at /debug/pprof/ (env DYNAPI_PROFILING=true)")
		fs.StringVar(&c.RuntimeConfig, "runtime-config", env("DYNAPI_RUNTIME_CONFIG", ""),
			"switch API groups and versions off (or on): group/version=false, group=false, api/all=false, comma-separated (env DYNAPI_RUNTIME_CONFIG)")
		fs.StringVar(&c.SchemaChangePolicy, "schema-change-policy", env("DYNAPI_SCHEMA_CHANGE_POLICY", string(reload.PolicyReport)),
			"what a schema change that would break stored objects does: report (log it, apply it) or refuse (keep the previous definition) (env DYNAPI_SCHEMA_CHANGE_POLICY)")
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if cmd == "serve" && getenv("GOGC") == "" {
		c.GCPercent = defaultGCPercent
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return c, fmt.Errorf("--tls-cert-file and --tls-key-file go together")
	}
	if _, err := registry.ParseRuntimeConfig(c.RuntimeConfig); err != nil {
		return c, fmt.Errorf("--runtime-config: %w", err)
	}
	if _, err := reload.ParsePolicy(c.SchemaChangePolicy); err != nil {
		return c, fmt.Errorf("--schema-change-policy: %w", err)
	}
	return c, nil
}

// envDuration reads a duration from the environment, or returns def when
// it is unset or unreadable (the flag's own parsing reports bad values).
func envDuration(getenv func(string) string, name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(getenv(name)); err == nil {
		return d
	}
	return def
}
