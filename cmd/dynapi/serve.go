package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/gc"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/namespace"
	"github.com/dynapi/dynapi/engine/pgserver"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/reload"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/migrations"
)

// shutdownTimeout bounds how long in-flight requests may finish on Close.
const shutdownTimeout = 10 * time.Second

// namespaceRecheck is how often the namespace finalizer looks for
// namespaces marked for deletion through other processes (or before a
// restart); those marked through this one it sees at once.
const namespaceRecheck = 10 * time.Second

// gcRecheck is how often the garbage collector looks for work done
// through other processes (or before a restart) and for dependents whose
// owners never existed; deletes through this one it sees at once.
const gcRecheck = 10 * time.Second

// Main is a running dynapi server: Run starts it, Close stops it.
type Main struct {
	Config Config
	Logger *slog.Logger

	pg          *pgserver.Server
	store       *postgres.Store
	reloader    *reload.Reloader
	metrics     *prometheus.Registry
	stopReload  context.CancelFunc
	reloading   chan struct{} // closed when the reloader's Run returns
	indexer     *fieldIndexer
	stopIndexer context.CancelFunc
	stopCRDs    func() // stops the CustomResourceDefinition controller and waits for it
	stopNSs     func() // stops the namespace finalizer and waits for it
	stopGC      func() // stops the garbage collector and waits for it
	http        *http.Server
	listener    net.Listener
	served      chan error
}

// Run opens (or starts) the database, migrates it, loads the definitions,
// keeps them in step with their files, and starts serving. It returns once
// the server accepts connections.
func (m *Main) Run(ctx context.Context) error {
	m.metrics = newMetricsRegistry()
	if err := m.openDatabase(ctx); err != nil {
		return err
	}
	service := resource.New(m.store)
	namespaces := controlplane.Register(service)
	collector := gc.New(service, m.store, reloaderSnapshots{m})
	if err := m.startReloader(ctx, service); err != nil {
		return err
	}
	if err := m.startCRDs(ctx, service); err != nil {
		return err
	}
	if err := m.ensureDefaultNamespace(ctx, service); err != nil {
		return err
	}
	m.stopNSs = runUntilStopped(ctx, func(ctx context.Context) {
		namespaces.Run(ctx, namespaceRecheck, m.Logger)
	})
	m.stopGC = runUntilStopped(ctx, func(ctx context.Context) {
		collector.Run(ctx, gcRecheck, m.Logger)
	})
	return m.serve(httpapi.New(service, m.reloader, httpapi.Options{
		Ready: m.store.Ping, Logger: m.Logger, Metrics: m.metrics, Profiling: m.Config.Profiling,
	}))
}

// reloaderSnapshots gives the garbage collector the snapshots of m's
// reloader, which starts after the collector is wired.
type reloaderSnapshots struct{ m *Main }

func (r reloaderSnapshots) Load() *registry.Snapshot { return r.m.reloader.Load() }

// Addr is the address the server listens on (useful with port 0).
func (m *Main) Addr() string { return m.listener.Addr().String() }

func (m *Main) openDatabase(ctx context.Context) error {
	dbURL := m.Config.DatabaseURL
	if dbURL == "" {
		if url, ok := pgserver.Running(m.Config.DataDir); ok {
			// PostgreSQL's own answer would be a lock file error from its log.
			return fmt.Errorf("the private PostgreSQL in %s is already running, for another dynapi: stop that one, "+
				"give this one another --data-dir, or serve the same database from both with --database-url '%s'", m.Config.DataDir, url)
		}
		pg, err := pgserver.Start(ctx, pgserver.Options{DataDir: m.Config.DataDir, Logger: m.Logger})
		if err != nil {
			return fmt.Errorf("start private PostgreSQL: %w", err)
		}
		m.pg, dbURL = pg, pg.URL()
	}
	opts := postgres.Options{Retention: m.Config.EventRetention, Logger: m.Logger}
	if m.metrics != nil {
		// Not a nil *Registry in the interface: a Registerer that is not
		// nil but panics when used.
		opts.Metrics = m.metrics
	}
	store, err := postgres.OpenWithOptions(ctx, dbURL, opts)
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
	err := namespace.Ensure(ctx, service, m.reloader.Load(), "default")
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
	if m.stopCRDs != nil {
		m.stopCRDs()
	}
	if m.stopGC != nil {
		m.stopGC()
	}
	if m.stopNSs != nil {
		m.stopNSs()
	}
	if m.stopReload != nil {
		m.stopReload()
		<-m.reloading
	}
	if m.stopIndexer != nil {
		m.stopIndexer() // before the pool closes: an index build in progress is cancelled
		<-m.indexer.done
	}
	if m.store != nil {
		m.store.Close()
	}
	if m.pg != nil {
		errs = append(errs, m.pg.Stop())
	}
	return errors.Join(errs...)
}

// redact hides the password of a database URL for the log, in either of
// PostgreSQL's forms: a URL, or keyword=value pairs.
func redact(dbURL string) string {
	if !strings.Contains(dbURL, "://") {
		return passwordPair.ReplaceAllString(dbURL, "${1}xxxxx")
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// passwordPair is the password of a keyword=value connection string,
// quoted or not.
var passwordPair = regexp.MustCompile(`(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)
