package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/encryption"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/pgserver"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/webhook"
	"github.com/dynapi/dynapi/internal/pki"
	"github.com/dynapi/dynapi/migrations"
)

// Main is a running dynapi server: Run starts it, Close stops it. It
// opens the database and turns Config into a controlplane.Config;
// controlplane.Start starts all the rest.
type Main struct {
	Config Config
	Logger *slog.Logger

	pg           *pgserver.Server
	store        *postgres.Store
	metrics      *prometheus.Registry
	controlPlane *controlplane.ControlPlane
	auditLog     *audit.Log // with --audit-policy-file
	pki          *pki.Files // the bootstrapped certificates, if any (see bootstraps)
}

// Run opens (or starts) the database, migrates it, and starts the control
// plane: it loads the definitions, keeps them in step with their files,
// and serves. It returns once the server accepts connections.
func (m *Main) Run(ctx context.Context) error {
	if m.Config.bootstraps() {
		if err := m.bootstrap(); err != nil {
			return err
		}
	}
	if err := m.Config.Security.checkListen(m.Config.Listen); err != nil {
		return err
	}
	for _, w := range m.Config.warnings() {
		m.Logger.Warn(w, "listen", m.Config.Listen)
	}
	m.metrics = controlplane.NewMetrics()
	if err := m.openDatabase(ctx); err != nil {
		return err
	}
	cfg, err := m.controlPlaneConfig()
	if err != nil {
		return err
	}
	if m.controlPlane, err = controlplane.Start(ctx, cfg); err != nil {
		return err
	}
	return m.writeKubeconfig(m.controlPlane.Addr())
}

// controlPlaneConfig is what serve starts, from m.Config, over the
// opened store.
func (m *Main) controlPlaneConfig() (controlplane.Config, error) {
	files, err := m.Config.files()
	if err != nil {
		return controlplane.Config{}, err
	}
	files.Progress = logProgress(m.Config, m.Logger)
	service := resource.New(m.store)
	service.SetCacheBytes(int64(m.Config.WriteCacheMB) << 20)
	cfg := controlplane.Config{Service: service, Logger: m.Logger, Files: files,
		HTTP: httpapi.Options{Ready: m.store.Ping, Unavailable: postgres.IsUnavailable, Metrics: m.metrics,
			Profiling: m.Config.Profiling, BookmarkInterval: m.Config.WatchBookmarkInterval},
		Collect: m.store, FieldIndexes: m.store, MigrationBatch: m.Config.MigrateBatch,
		AuthenticationConfig: m.Config.Security.AuthenticationConfig}
	if cfg.Webhooks, err = m.webhooks(); err != nil {
		return controlplane.Config{}, err
	}
	if err := m.secure(&cfg.HTTP); err != nil {
		return controlplane.Config{}, err
	}
	if cfg.RootCA, err = m.Config.Security.rootCA(); err != nil {
		return controlplane.Config{}, err
	}
	if cfg.ServiceAccounts, err = m.serviceAccounts(); err != nil {
		return controlplane.Config{}, err
	}
	if cfg.RBAC, err = m.Config.Security.rbac(); err != nil {
		return controlplane.Config{}, err
	}
	if cfg.Serving, err = m.serving(); err != nil {
		return controlplane.Config{}, err
	}
	return cfg, nil
}

// webhooks is the client of conversion and admission webhooks, its
// metrics in the server's registry.
func (m *Main) webhooks() (*webhook.Client, error) {
	resolver, err := webhook.LoadServiceResolver(m.Config.WebhookServiceResolver, m.Config.WebhookServiceMap)
	if err != nil {
		return nil, err
	}
	return webhook.New(webhook.Options{Resolver: resolver, Registerer: m.metrics}), nil
}

// serving is where and how serve listens.
func (m *Main) serving() (*controlplane.Serving, error) {
	s := &controlplane.Serving{Listen: m.Config.Listen, MaxOpenConnections: m.Config.MaxOpenConnections,
		FirstRequestTimeout: m.Config.FirstRequestTimeout}
	if m.Config.TLSCertFile == "" {
		return s, nil
	}
	var err error
	s.TLS, err = m.serverTLS()
	return s, err
}

// Addr is the address the server listens on (useful with port 0).
func (m *Main) Addr() string { return m.controlPlane.Addr() }

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
	opts := postgres.Options{Retention: m.Config.EventRetention, Logger: m.Logger, CountInterval: m.Config.CountMetricPollPeriod,
		CompactInterval: min(10*time.Second, max(m.Config.EventRetention, time.Second)),
		ReadURLs:        readURLs(m.Config.DatabaseReadURLs), MaxReplicaLag: m.Config.DatabaseReadMaxLag}
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
	m.Logger.Info("database ready", "url", redact(dbURL), "private", m.pg != nil, "replicas", len(opts.ReadURLs))
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

// Close stops serving (letting in-flight requests finish) and the
// control plane, closes the database pool and stops the private
// PostgreSQL, if any.
func (m *Main) Close() error {
	var errs []error
	if m.controlPlane != nil {
		errs = append(errs, m.controlPlane.Close())
	}
	if m.auditLog != nil {
		errs = append(errs, m.auditLog.Close())
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
