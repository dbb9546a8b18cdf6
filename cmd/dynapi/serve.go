package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/pgserver"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/migrations"
)

// shutdownTimeout bounds how long in-flight requests may finish on Close.
const shutdownTimeout = 10 * time.Second

// Main is a running dynapi server: Run starts it, Close stops it.
type Main struct {
	Config Config
	Logger *slog.Logger

	pg        *pgserver.Server
	store     *postgres.Store
	snapshots atomic.Pointer[registry.Snapshot]
	http      *http.Server
	listener  net.Listener
	served    chan error
}

// Run loads the definitions, opens (or starts) the database, migrates it and
// starts serving. It returns once the server accepts connections.
func (m *Main) Run(ctx context.Context) error {
	m.loadDefinitions()
	if err := m.openDatabase(ctx); err != nil {
		return err
	}
	service := resource.New(m.store)
	if err := m.ensureDefaultNamespace(ctx, service); err != nil {
		return err
	}
	var handler http.Handler = httpapi.New(service, &m.snapshots, m.store.Ping, m.Logger)
	if m.Config.Profiling {
		handler = withProfiling(handler)
	}
	return m.serve(handler)
}

// Addr is the address the server listens on (useful with port 0).
func (m *Main) Addr() string { return m.listener.Addr().String() }

func (m *Main) loadDefinitions() {
	snap, problems := registry.Load(os.DirFS(m.Config.Schemas), os.DirFS(m.Config.Conversions))
	for _, p := range problems {
		dir := m.Config.Schemas
		if p.Conversion {
			dir = m.Config.Conversions
		}
		m.Logger.Warn("definition refused", "file", filepath.Join(dir, p.File), "line", p.Line, "reason", p.Reason)
	}
	m.snapshots.Store(snap)
	m.Logger.Info("definitions loaded", "dir", m.Config.Schemas, "resources", len(snap.Resources()), "refused", len(problems))
}

func (m *Main) openDatabase(ctx context.Context) error {
	dbURL := m.Config.DatabaseURL
	if dbURL == "" {
		pg, err := pgserver.Start(ctx, pgserver.Options{DataDir: m.Config.DataDir, Logger: m.Logger})
		if err != nil {
			return fmt.Errorf("start private PostgreSQL: %w", err)
		}
		m.pg, dbURL = pg, pg.URL()
	}
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	m.store = store
	if err := store.Migrate(ctx, migrations.FS); err != nil {
		return fmt.Errorf("migrate database: %w", err)
	}
	m.Logger.Info("database ready", "url", redact(dbURL), "private", m.pg != nil)
	return nil
}

// ensureDefaultNamespace creates the "default" namespace on first start.
func (m *Main) ensureDefaultNamespace(ctx context.Context, service *resource.Service) error {
	err := service.EnsureNamespace(ctx, m.snapshots.Load(), "default")
	if engine.ErrorCode(err) == engine.CodeNotFound {
		m.Logger.Warn("namespaced kinds cannot be used", "reason", err)
		return nil
	}
	return err
}

func (m *Main) serve(handler http.Handler) error {
	ln, err := net.Listen("tcp", m.Config.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	m.listener = ln
	m.http = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	m.served = make(chan error, 1)
	scheme := "http"
	if m.Config.TLSCertFile != "" {
		scheme = "https"
	}
	go func() {
		if scheme == "https" {
			m.served <- m.http.ServeTLS(ln, m.Config.TLSCertFile, m.Config.TLSKeyFile)
		} else {
			m.served <- m.http.Serve(ln)
		}
	}()
	m.Logger.Info("serving", "url", scheme+"://"+ln.Addr().String())
	return nil
}

// Close stops serving (letting in-flight requests finish), closes the
// database pool and stops the private PostgreSQL, if any.
func (m *Main) Close() error {
	var errs []error
	if m.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		errs = append(errs, m.http.Shutdown(ctx))
		if err := <-m.served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	if m.store != nil {
		m.store.Close()
	}
	if m.pg != nil {
		errs = append(errs, m.pg.Stop())
	}
	return errors.Join(errs...)
}

// withProfiling serves Go's profiler under /debug/pprof/, as kube-apiserver
// does with --profiling.
func withProfiling(api http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/", api)
	return mux
}

// redact hides the password of a database URL for the log.
func redact(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
