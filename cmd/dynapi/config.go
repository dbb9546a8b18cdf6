package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dynapi/dynapi/engine/connlimit"
	"github.com/dynapi/dynapi/engine/objcache"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/reload"
	"github.com/dynapi/dynapi/engine/webhook"
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
	// TLSMinVersion is VersionTLS12 or VersionTLS13 ("": 1.2).
	TLSMinVersion string
	Profiling     bool
	// EncryptionProviderConfig is kube-apiserver's EncryptionConfiguration
	// file (--encryption-provider-config); empty: nothing is encrypted.
	EncryptionProviderConfig string
	// DatabaseReadURLs name hot-standby replicas that serve reads once
	// they have replayed past the primary's position (see postgres.Options),
	// separated by ';' (a string: Config stays comparable); see readURLs.
	DatabaseReadURLs string
	// DatabaseReadMaxLag is how long a read waits for a replica before
	// the primary answers it.
	DatabaseReadMaxLag time.Duration
	// EventRetention is how long the history of writes is kept for watches
	// and consistent paginated lists.
	EventRetention time.Duration
	// CountMetricPollPeriod is how often the objects of each resource are
	// counted for apiserver_storage_objects (0: never).
	CountMetricPollPeriod time.Duration
	// WatchBookmarkInterval is how often a watch that allows bookmarks
	// gets one.
	WatchBookmarkInterval time.Duration
	// MigrateBatch is how many objects `dynapi migrate`, and each
	// StorageVersionMigration a server runs, read per page.
	MigrateBatch int64
	// WriteCacheMB bounds, in MiB, the cache of stored objects that
	// updates, patches and deletes start from (engine/objcache); 0: none.
	WriteCacheMB int
	// RuntimeConfig switches API groups and versions off, as
	// kube-apiserver's --runtime-config (see registry.ParseRuntimeConfig).
	RuntimeConfig string
	// SchemaChangePolicy is "report" or "refuse" (see reload.Policy).
	SchemaChangePolicy string
	Security           SecurityConfig
	// Log is the format and level of the log.
	Log LogConfig
	// MaxOpenConnections bounds the connections served at once (0: no
	// bound); see connlimit.
	MaxOpenConnections int
	// FirstRequestTimeout closes a connection that has not sent its
	// first request's headers, TLS handshake included, this long after it
	// was accepted (0: no bound); see connlimit.
	FirstRequestTimeout time.Duration
	// WebhookServiceResolver is the template that turns a webhook's
	// service reference into an address, and WebhookServiceMap a file of
	// "namespace/name[:port]: host:port" entries read first (see
	// webhook.ServiceResolver): dynapi has no Service network.
	WebhookServiceResolver string
	WebhookServiceMap      string
	// Bootstrap makes serve, told to listen beyond loopback with no
	// authentication, make its own CA, certificates and admin kubeconfig
	// in DataDir and turn RBAC on, rather than refuse to start.
	Bootstrap bool
	// CRDDeletionProtection refuses to delete a CustomResourceDefinition
	// while objects of its kind are stored.
	CRDDeletionProtection bool
	// Version asks for dynapi's version instead of running the command.
	Version bool
	// ProgressInterval is how long loading the definitions takes before
	// a line tells how far it is, and then how often (0: a second).
	ProgressInterval time.Duration
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

// defaultFirstRequestTimeout bounds a new connection's TLS handshake and
// first request's headers: Go's HTTP/2 server gives the client preface
// as long, and it is ample over a slow link, yet an idle socket gives its
// place back three times sooner than at kube's ReadHeaderTimeout (32 s,
// twice over TLS).
const defaultFirstRequestTimeout = 10 * time.Second

// commands is what the usage says of each subcommand.
const commands = `Commands:
  serve    serve the APIs in --schemas (the default)
  check    load every definition, print each problem, exit 1 if any
  migrate  rewrite objects stored in older versions in the storage version,
           and those encrypted with an older key (--encryption-provider-config)
  version  print dynapi's version and the Kubernetes API version it serves
  healthcheck  exit 0 if the server that wrote --data-dir/kubeconfig answers /readyz
               (the container image's HEALTHCHECK: it has no shell)
`

// usageError is a command line that does not parse: it is told in one
// line, with a hint to the usage, and the process exits 2.
type usageError struct {
	command string // "dynapi" or "dynapi check"
	msg     string
}

func (e *usageError) Error() string { return e.msg }

// usageErrorOf turns an error of flag.FlagSet.Parse into a usageError
// worded as Kubernetes' commands word it ("unknown flag: --foo"): the
// flag package accepts -foo and --foo alike, and the usage shows --foo.
func usageErrorOf(command string, err error) *usageError {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag: --" + name
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = "flag needs an argument: --" + name
	}
	return &usageError{command: command, msg: msg}
}

// parseConfig reads flags for cmd; a flag not given falls back to its
// environment variable, then to its default. Environment values go through
// the flag's own parser, so a bad one is an error as on the command line.
// Asked for the help, it prints it to stdout and returns flag.ErrHelp; a
// command line that does not parse is a *usageError.
func parseConfig(cmd string, args []string, getenv func(string) string, stdout io.Writer) (Config, error) {
	var c Config
	fs := flag.NewFlagSet("dynapi "+cmd, flag.ContinueOnError)
	// The flag package prints its error and the whole usage on any
	// mistake: the caller tells the mistake in one line instead.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	envOf := map[string]string{}
	withEnv := func(name, envName string) string {
		envOf[name] = envName
		return " (env " + envName + ")"
	}
	fs.StringVar(&c.Schemas, "schemas", "./schemas", "directory of API definition files"+withEnv("schemas", "DYNAPI_SCHEMAS"))
	fs.StringVar(&c.Conversions, "conversions", "./conversions", "directory of conversion rule files"+withEnv("conversions", "DYNAPI_CONVERSIONS"))
	if cmd == "serve" || cmd == "migrate" {
		fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL URL; empty starts a private PostgreSQL in --data-dir"+withEnv("database-url", "DATABASE_URL"))
		fs.StringVar(&c.DataDir, "data-dir", "./.dynapi", "where the private PostgreSQL keeps its data"+withEnv("data-dir", "DYNAPI_DATA_DIR"))
	}
	if cmd == "healthcheck" {
		fs.StringVar(&c.DataDir, "data-dir", "./.dynapi", "where serve wrote its kubeconfig"+withEnv("data-dir", "DYNAPI_DATA_DIR"))
	}
	if cmd == "serve" {
		fs.Var((*urlList)(&c.DatabaseReadURLs), "database-read-url",
			"PostgreSQL URL of a hot-standby replica of --database-url that serves gets, lists and the watch poll once it has replayed past the primary's position; "+
				"repeatable, or several separated by ';'"+withEnv("database-read-url", "DATABASE_READ_URL"))
		fs.DurationVar(&c.DatabaseReadMaxLag, "database-read-max-lag", 100*time.Millisecond,
			"how long a read waits for a replica to catch up before the primary answers it"+withEnv("database-read-max-lag", "DYNAPI_DATABASE_READ_MAX_LAG"))
	}
	if cmd == "serve" || cmd == "migrate" {
		fs.StringVar(&c.EncryptionProviderConfig, "encryption-provider-config", "",
			"kube's EncryptionConfiguration file: encrypt the bodies of the resources it names at rest (read at start)"+
				withEnv("encryption-provider-config", "DYNAPI_ENCRYPTION_PROVIDER_CONFIG"))
	}
	if cmd == "serve" || cmd == "migrate" {
		fs.Int64Var(&c.MigrateBatch, "batch", 500, "objects read and rewritten per page by migrate and by each StorageVersionMigration")
	}
	if cmd == "serve" {
		fs.StringVar(&c.Listen, "listen", "127.0.0.1:8080", "address to serve on"+withEnv("listen", "DYNAPI_LISTEN"))
		fs.StringVar(&c.TLSCertFile, "tls-cert-file", "", "serve HTTPS with this certificate"+withEnv("tls-cert-file", "DYNAPI_TLS_CERT_FILE"))
		fs.StringVar(&c.TLSKeyFile, "tls-private-key-file", "", "key of --tls-cert-file"+withEnv("tls-private-key-file", "DYNAPI_TLS_KEY_FILE"))
		fs.StringVar(&c.TLSKeyFile, "tls-key-file", "", "alias of --tls-private-key-file")
		fs.StringVar(&c.TLSMinVersion, "tls-min-version", "", "VersionTLS12 (the default) or VersionTLS13"+withEnv("tls-min-version", "DYNAPI_TLS_MIN_VERSION"))
		securityFlags(fs, &c.Security, withEnv)
		fs.BoolVar(&c.Bootstrap, "bootstrap", true,
			"listening beyond loopback with no authentication configured: make a CA, serving and admin certificates in --data-dir/pki, "+
				"serve TLS, authenticate client certificates, turn RBAC on and write --data-dir/kubeconfig (false: refuse to start instead)"+
				withEnv("bootstrap", "DYNAPI_BOOTSTRAP"))
		fs.IntVar(&c.MaxOpenConnections, "max-open-connections", connlimit.DefaultLimit(),
			fmt.Sprintf("most connections open at once, the default derived from the file-descriptor limit; %d more are kept for /healthz, /livez and /readyz "+
				"(other requests on them get 429), beyond that a connection is closed at once; one client address holds at most a quarter of them "+
				"until they authenticate (0: no bound)", connlimit.Reserve)+
				withEnv("max-open-connections", "DYNAPI_MAX_OPEN_CONNECTIONS"))
		fs.DurationVar(&c.FirstRequestTimeout, "first-request-timeout", defaultFirstRequestTimeout,
			"close a connection that has not sent its first request's headers (TLS handshake included) this long after it opened (0: no bound)"+
				withEnv("first-request-timeout", "DYNAPI_FIRST_REQUEST_TIMEOUT"))
		fs.StringVar(&c.WebhookServiceResolver, "webhook-service-resolver", webhook.DefaultServiceTemplate,
			"template of the address a conversion or admission webhook's clientConfig.service is called at ({{.Name}}, {{.Namespace}}, {{.Port}})"+
				withEnv("webhook-service-resolver", "DYNAPI_WEBHOOK_SERVICE_RESOLVER"))
		fs.StringVar(&c.WebhookServiceMap, "webhook-service-map", "",
			"YAML file mapping webhook services (\"namespace/name[:port]\") to addresses (\"host:port\"), looked up before --webhook-service-resolver (read at start)"+
				withEnv("webhook-service-map", "DYNAPI_WEBHOOK_SERVICE_MAP"))
		fs.BoolVar(&c.CRDDeletionProtection, "crd-deletion-protection", false,
			"refuse to delete a CustomResourceDefinition while objects of its kind are stored (409), as its annotation dynapi.dev/deletion-protection does"+
				withEnv("crd-deletion-protection", "DYNAPI_CRD_DELETION_PROTECTION"))
		fs.IntVar(&c.WriteCacheMB, "write-cache-mb", objcache.DefaultMaxBytes>>20,
			"MiB of the objects this process last wrote or read for a write, kept so that its next update, patch or delete of one skips reading it (0: none)"+
				withEnv("write-cache-mb", "DYNAPI_WRITE_CACHE_MB"))
		fs.DurationVar(&c.EventRetention, "event-retention", 5*time.Minute,
			"how long the history of writes is kept for watches and paginated lists"+withEnv("event-retention", "DYNAPI_EVENT_RETENTION"))
		fs.DurationVar(&c.CountMetricPollPeriod, "count-metric-poll-period", time.Minute,
			"how often the objects of each resource are counted for apiserver_storage_objects (kube's --etcd-count-metric-poll-period; 0: never)"+
				withEnv("count-metric-poll-period", "DYNAPI_COUNT_METRIC_POLL_PERIOD"))
		fs.DurationVar(&c.WatchBookmarkInterval, "watch-bookmark-interval", 10*time.Second,
			"how often a watch with allowWatchBookmarks gets a BOOKMARK"+withEnv("watch-bookmark-interval", "DYNAPI_WATCH_BOOKMARK_INTERVAL"))
		fs.BoolVar(&c.Profiling, "profiling", false, "serve Go's profiler at /debug/pprof/"+withEnv("profiling", "DYNAPI_PROFILING"))
		fs.StringVar(&c.RuntimeConfig, "runtime-config", "",
			"switch API groups and versions off (or on): group/version=false, group=false, api/all=false, comma-separated"+withEnv("runtime-config", "DYNAPI_RUNTIME_CONFIG"))
		fs.StringVar(&c.SchemaChangePolicy, "schema-change-policy", string(reload.PolicyReport),
			"what a schema change that would break stored objects does: report (log it, apply it) or refuse (keep the previous definition)"+
				withEnv("schema-change-policy", "DYNAPI_SCHEMA_CHANGE_POLICY"))
	}
	logFlags(fs, &c.Log, withEnv)
	fs.BoolVar(&c.Version, "version", false, "print dynapi's version and the Kubernetes API version it serves, and exit")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		printUsage(fs, cmd, stdout)
		return c, err
	} else if err != nil {
		return c, usageErrorOf(commandName(cmd), err)
	}
	if c.Version {
		return c, nil
	}
	if fs.NArg() > 0 {
		return c, &usageError{command: commandName(cmd), msg: fmt.Sprintf("unexpected arguments: %v", fs.Args())}
	}
	if err := setFromEnv(fs, envOf, getenv); err != nil {
		return c, err
	}
	if err := c.Log.check(); err != nil {
		return c, err
	}
	if cmd == "serve" && getenv("GOGC") == "" {
		c.GCPercent = defaultGCPercent
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return c, fmt.Errorf("--tls-cert-file and --tls-key-file go together")
	}
	if _, ok := tlsVersions[c.TLSMinVersion]; c.TLSMinVersion != "" && !ok {
		return c, fmt.Errorf("--tls-min-version: %q is not VersionTLS12 or VersionTLS13", c.TLSMinVersion)
	}
	if cmd == "serve" {
		if err := c.Security.check(); err != nil {
			return c, err
		}
	}
	if _, err := registry.ParseRuntimeConfig(c.RuntimeConfig); err != nil {
		return c, fmt.Errorf("--runtime-config: %w", err)
	}
	if _, err := reload.ParsePolicy(c.SchemaChangePolicy); err != nil {
		return c, fmt.Errorf("--schema-change-policy: %w", err)
	}
	return c, nil
}

// urlList is a repeatable flag of URLs, kept joined by ';'; one value may
// hold several, separated so (a comma belongs to a multi-host URL), so
// that one environment variable can name them all.
type urlList string

// String returns the URLs as Set reads them.
func (l *urlList) String() string { return string(*l) }

// Set adds the URLs of v.
func (l *urlList) Set(v string) error {
	*l = urlList(strings.Join(append(readURLs(string(*l)), readURLs(v)...), ";"))
	return nil
}

// readURLs splits the URLs of a --database-read-url value.
func readURLs(v string) []string {
	var out []string
	for _, u := range strings.Split(v, ";") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// printUsage prints the help of cmd, with its flags, to w.
func printUsage(fs *flag.FlagSet, cmd string, w io.Writer) {
	fmt.Fprintf(w, "Usage: dynapi [command] [flags]\n\n%s\nFlags of %s:\n", commands, cmd)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// commandName is the command as the user typed it, for the hint to its
// usage: "dynapi" for serve when not named.
func commandName(cmd string) string {
	if cmd == "serve" {
		return "dynapi"
	}
	return "dynapi " + cmd
}

// setFromEnv sets each flag of envOf that the command line did not give
// from its environment variable, if that is set.
func setFromEnv(fs *flag.FlagSet, envOf map[string]string, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for name, envName := range envOf {
		if v := getenv(envName); v != "" && !given[name] {
			if err := fs.Set(name, v); err != nil {
				return fmt.Errorf("invalid value %q for %s: %w", v, envName, err)
			}
		}
	}
	return nil
}
