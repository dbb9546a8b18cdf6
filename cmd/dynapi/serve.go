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
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/audit"
	rbacauthz "github.com/dynapi/dynapi/engine/authz/rbac"
	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/encryption"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/pgserver"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/reload"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/migrations"
)

// shutdownTimeout bounds how long in-flight requests may finish on Close.
const shutdownTimeout = 10 * time.Second

// Main is a running dynapi server: Run starts it, Close stops it.
type Main struct {
	Config Config
	Logger *slog.Logger

	pg           *pgserver.Server
	store        *postgres.Store
	reloader     *reload.Reloader
	metrics      *prometheus.Registry
	stopReload   context.CancelFunc
	reloading    chan struct{} // closed when the reloader's Run returns
	indexer      *fieldIndexer
	api          atomic.Pointer[httpapi.Server] // set once serving; OnSwap prepares its documents
	release      releaser                       // returns the memory of definition changes
	stopIndexer  context.CancelFunc
	controlPlane *controlplane.ControlPlane
	auditLog     *audit.Log       // with --audit-policy-file
	rbac         *rbacauthz.Index // with --authorization-mode=RBAC
	http         *http.Server
	listener     net.Listener
	served       chan error
}

// Run opens (or starts) the database, migrates it, loads the definitions,
// keeps them in step with their files, and starts serving. It returns once
// the server accepts connections.
func (m *Main) Run(ctx context.Context) error {
	if err := m.Config.Security.checkListen(m.Config.Listen); err != nil {
		return err
	}
	for _, w := range m.Config.warnings() {
		m.Logger.Warn(w, "listen", m.Config.Listen)
	}
	m.metrics = newMetricsRegistry()
	if err := m.openDatabase(ctx); err != nil {
		return err
	}
	service := resource.New(m.store)
	if err := m.startReloader(ctx); err != nil {
		return err
	}
	opts := httpapi.Options{Ready: m.store.Ping, Unavailable: postgres.IsUnavailable, Metrics: m.metrics, Profiling: m.Config.Profiling,
		BookmarkInterval: m.Config.WatchBookmarkInterval}
	if err := m.secure(service, &opts); err != nil {
		return err
	}
	cfg := controlplane.Config{Service: service, Snapshots: m.reloader, Logger: m.Logger, HTTP: opts, Collect: m.store}
	if m.rbac != nil {
		cfg.Escalation = m.rbac
	}
	cp, err := controlplane.Start(ctx, cfg)
	if err != nil {
		return err
	}
	m.controlPlane = cp
	if m.rbac != nil {
		if err := m.startRBAC(ctx, service); err != nil {
			return err
		}
	}
	m.api.Store(cp.API)
	// Built before serving, so that no client waits for them; a swap
	// meanwhile prepares them again.
	if err := cp.API.BuildOpenAPI(); err != nil {
		m.Logger.Warn("OpenAPI documents not built", "err", err)
	}
	// Loading the definitions left garbage of several times what they
	// hold (see releaser): returned before serving, not some time after.
	debug.FreeOSMemory()
	// The documents are packed, and the v2 document rendered in protobuf
	// (which few clients read), while serving; the garbage of that work
	// is returned after.
	cp.API.PrepareOpenAPI(m.release.changed)
	return m.serve(cp.API)
}

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
	// Compacting every 10 s keeps up to 10 s more history than the
	// retention: nothing next to 5 minutes, but ten times a retention of
	// one second. A short retention is compacted as often, down to once a second.
	opts := postgres.Options{Retention: m.Config.EventRetention, Logger: m.Logger,
		CompactInterval: min(10*time.Second, max(m.Config.EventRetention, time.Second))}
	if err := withEncryption(m.Config.EncryptionProviderConfig, &opts); err != nil {
		return err
	}
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

// withEncryption sets opts.Encryption from the EncryptionConfiguration
// file at path; nothing when path is empty. Errors: Load's.
func withEncryption(path string, opts *postgres.Options) error {
	if path == "" {
		return nil
	}
	cfg, err := encryption.Load(path)
	if err != nil {
		return err
	}
	opts.Encryption = func(gr engine.GroupResource) postgres.Transformer {
		if t := cfg.For(gr); t != nil {
			return t
		}
		return nil // not a nil *Transformer in the interface
	}
	return nil
}

func (m *Main) serve(api *httpapi.Server) error {
	ln, err := net.Listen("tcp", m.Config.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	m.listener = controlplane.Listen(ln, m.Config.MaxOpenConnections, m.Config.FirstRequestTimeout, m.Config.Security.authenticated())
	m.http = controlplane.NewHTTPServer(api)
	m.served = make(chan error, 1)
	scheme := "http"
	if m.Config.TLSCertFile != "" {
		scheme = "https"
		if m.http.TLSConfig, err = m.serverTLS(); err != nil {
			ln.Close()
			return err
		}
	}
	go func() {
		if scheme == "https" {
			m.served <- m.http.ServeTLS(m.listener, "", "") // HTTP/2 too; the certificate from TLSConfig
		} else {
			m.served <- m.http.Serve(m.listener)
		}
	}()
	m.Logger.Info("serving", "url", scheme+"://"+ln.Addr().String(), "maxOpenConnections", m.Config.MaxOpenConnections)
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
	if m.controlPlane != nil {
		m.controlPlane.Stop()
	}
	if m.auditLog != nil {
		errs = append(errs, m.auditLog.Close())
	}
	if m.stopReload != nil {
		m.stopReload()
		<-m.reloading
	}
	m.release.stop()
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
