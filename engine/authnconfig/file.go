package authnconfig

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apiserver/pkg/apis/apiserver"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/authn"
)

// Options tune a File; the zero value works.
type Options struct {
	// DisallowedIssuers are the service-account issuers: no JWT entry may
	// name one.
	DisallowedIssuers []string
	// Interval is how often the file is read for a change; 0: every second
	// (the file is small, and kube's minute is long for an operator
	// waiting on an edit).
	Interval time.Duration
	// Registerer receives kube's reload metrics; nil: kept, not registered.
	Registerer prometheus.Registerer
	// ServerID is this server's identity, hashed into apiserver_id_hash.
	ServerID string
	Logger   *slog.Logger // nil: discard
}

// File is the authenticator of an AuthenticationConfiguration file: its
// JWT issuers, tried in the file's order. Run follows the file. It is
// safe for concurrent use.
type File struct {
	path      string
	opts      Options
	metrics   *metrics
	anonymous *apiserver.AnonymousAuthConfig // the first file's: kube refuses a change
	current   atomic.Pointer[authn.Union]
	tracked   []byte // the content last tried; Run's only
}

var _ authn.Authenticator = (*File)(nil)

// Open reads, validates and builds the configuration of path. Errors:
// those of reading it, Parse's, and a certificateAuthority that holds no
// certificate, each naming the file.
func Open(path string, opts Options) (*File, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--authentication-config: %w", err)
	}
	c, u, err := load(data, opts.DisallowedIssuers)
	if err != nil {
		return nil, fmt.Errorf("--authentication-config %s: %w", path, err)
	}
	f := &File{path: path, opts: opts, metrics: newMetrics(opts.Registerer, opts.ServerID), anonymous: c.Anonymous, tracked: data}
	f.current.Store(&u)
	f.metrics.applied(data)
	return f, nil
}

// load parses data and builds its authenticators.
func load(data []byte, disallowed []string) (*apiserver.AuthenticationConfiguration, authn.Union, error) {
	c, err := Parse(data, disallowed)
	if err != nil {
		return nil, nil, err
	}
	u, err := build(c, disallowed)
	return c, u, err
}

// Anonymous is the file's anonymous settings; nil when it has none.
func (f *File) Anonymous() *apiserver.AnonymousAuthConfig { return f.anonymous }

// Authenticate tries the issuers of the configuration in force.
func (f *File) Authenticate(r *http.Request) (*engine.User, bool, error) {
	return f.current.Load().Authenticate(r)
}

// Run reads the file every Interval until ctx ends, and puts a changed
// configuration in force when it is valid.
func (f *File) Run(ctx context.Context) {
	interval := f.opts.Interval
	if interval == 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f.reload()
		}
	}
}

// reload is kube's reload of a changed file: an unreadable file is a
// failure tried again; a file that does not parse, validate or build is a
// failure not tried again until it changes; the configuration in force
// stays in force after either.
func (f *File) reload() {
	data, err := os.ReadFile(f.path)
	if err != nil {
		f.fail("failed to read authentication config file", err)
		return
	}
	if bytes.Equal(data, f.tracked) {
		return
	}
	f.tracked = data
	c, u, err := load(data, f.opts.DisallowedIssuers)
	if err == nil && !reflect.DeepEqual(c.Anonymous, f.anonymous) {
		err = fmt.Errorf("anonymous: Forbidden: changed from initial configuration file")
	}
	if err != nil {
		f.fail("failed to load authentication config", err)
		return
	}
	f.current.Store(&u)
	f.metrics.reloaded("success")
	f.metrics.applied(data)
	f.opts.Logger.Info("reloaded authentication config", "file", f.path)
}

func (f *File) fail(msg string, err error) {
	f.metrics.reloaded("failure")
	f.opts.Logger.Error(msg+"; the previous configuration stays in force", "file", f.path, "err", err)
}
