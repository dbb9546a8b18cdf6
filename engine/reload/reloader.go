package reload

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynapi/dynapi/engine/registry"
)

// Options tune a Reloader; the zero value works.
type Options struct {
	Logger *slog.Logger // nil: discard
	// Debounce is how long a build waits after the last file change, so
	// that an editor's or a deploy's burst of changes costs one build.
	// 0: 100 ms.
	Debounce time.Duration
	// RuntimeConfig switches groups and versions off in every build.
	RuntimeConfig registry.RuntimeConfig
	// Preview, when set, checks the stored objects of a kind against a
	// changed definition before it takes effect; StoredObjects.Check is
	// one.
	Preview func(ctx context.Context, prev, next *registry.Resource) (SchemaCheck, error)
	// Policy says what a Preview that finds objects the change would break
	// does; "": PolicyReport.
	Policy Policy
	// PreviewTimeout bounds the Previews of one build; 0: one minute.
	PreviewTimeout time.Duration
	// Registerer receives the metrics; nil: they are kept, not registered.
	Registerer prometheus.Registerer
	// Now is the clock of the reload timestamp; nil: time.Now.
	Now func() time.Time
	// OnSwap, when set, is called with each snapshot swapped in, after it
	// is published, one call at a time (under the build lock): it must
	// hand long work (such as building indexes) to another goroutine.
	OnSwap func(*registry.Snapshot)
	// Progress, when set, is told how far each build's compiling is (see
	// registry.LoadOptions.Progress).
	Progress func(done, total int)
	// Webhooks converts the kinds converted by their conversion webhook
	// where a definition needs it (see registry.LoadOptions.Webhooks).
	Webhooks registry.BatchConverter
	// CheckAdmission checks the admission policies of the files (see
	// registry.LoadOptions.CheckAdmission).
	CheckAdmission func(kind string, doc []byte) []string
}

// Reloader builds registry snapshots from definition files and definitions
// created through the API, and hands out the current one. Build it with
// New; it is safe for concurrent use.
type Reloader struct {
	schemasDir, conversionsDir string
	opts                       Options
	logger                     *slog.Logger
	metrics                    *metrics

	mu sync.Mutex // one build at a time: each starts from the last one's snapshot
	// api are the definitions created through the API, and the hash of
	// each; guarded by mu.
	api     map[string][]byte
	apiSums map[string][sha256.Size]byte
	// rules are the conversion rules created through the API; guarded by mu.
	rules map[string][]byte

	current atomic.Pointer[build]

	changedMu sync.Mutex
	changed   chan struct{} // closed and replaced at each swap; guarded by changedMu
}

// build is one published result: a snapshot and how it came to be.
type build struct {
	snap     *registry.Snapshot
	problems []registry.Problem
	checks   []SchemaCheck // the last check of each resource that changed, still defined
	digest   string        // of what the build read: see digestFS
	// unmatched are the runtime-config keys no definition of the build
	// declares (see registry.RuntimeConfig.Unmatched).
	unmatched []string
}

// New returns a Reloader of the definition files under schemasDir and the
// conversion rules under conversionsDir ("": none). It serves an empty
// snapshot until the first Reload.
func New(schemasDir, conversionsDir string, opts Options) *Reloader {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 100 * time.Millisecond
	}
	if opts.PreviewTimeout <= 0 {
		opts.PreviewTimeout = time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r := &Reloader{schemasDir: schemasDir, conversionsDir: conversionsDir, opts: opts,
		logger: opts.Logger, metrics: newMetrics(opts.Registerer), changed: make(chan struct{})}
	r.current.Store(&build{snap: registry.Empty()})
	return r
}

// Load returns the current snapshot. Handlers call it once per request.
func (r *Reloader) Load() *registry.Snapshot { return r.current.Load().snap }

// Problems returns the problems of the current snapshot's build. The slice
// is shared: callers must not modify it.
func (r *Reloader) Problems() []registry.Problem { return r.current.Load().problems }

// SchemaChecks returns the last check of each resource whose schemas
// changed since the Reloader started, and that is still defined.
func (r *Reloader) SchemaChecks() []SchemaCheck { return r.current.Load().checks }

// Changed returns a channel closed at the next snapshot swap. Take it
// before reading the snapshot, so that no swap after the read goes unseen.
func (r *Reloader) Changed() <-chan struct{} {
	r.changedMu.Lock()
	defer r.changedMu.Unlock()
	return r.changed
}

// Reload builds a snapshot now and swaps it in. It returns an error when
// the schemas or conversions folder cannot be read; the definitions
// loaded from it before then serve on. Problems in files are no error:
// see Problems.
func (r *Reloader) Reload() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reloadLocked()
}

// SetAPIDefinitions replaces the definitions created through the API
// (name → CustomResourceDefinition JSON) and builds a snapshot with them
// before it returns. Their resources and problems have the File
// registry.APIFilePrefix + name. It keeps the slices: the caller must not
// modify them afterwards.
func (r *Reloader) SetAPIDefinitions(defs map[string][]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	api, sums := make(map[string][]byte, len(defs)), make(map[string][sha256.Size]byte, len(defs))
	for name, def := range defs {
		// Why keep an unchanged definition's own copy: the registry tells
		// the definitions it loaded before by their bytes' identity (a
		// change touches one among thousands), and its hash is known.
		if old, ok := r.api[name]; ok && bytes.Equal(old, def) {
			api[name], sums[name] = old, r.apiSums[name]
			continue
		}
		api[name], sums[name] = def, sha256.Sum256(def)
	}
	r.api, r.apiSums = api, sums
	_ = r.reloadLocked() // logged
}

// SetAPIConversions replaces the conversion rules created through the API
// (name → rules document JSON) and builds a snapshot with them before it
// returns: swapped in whole, as a file reload's. Their problems have the
// File registry.APIRulesPrefix + name. It keeps the slices: the caller
// must not modify them afterwards.
func (r *Reloader) SetAPIConversions(rules map[string][]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rules = rules
	_ = r.reloadLocked() // logged
}

func (r *Reloader) reloadLocked() error {
	prev := r.current.Load()
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.PreviewTimeout)
	defer cancel()
	checks := newChecks(prev.checks)
	digest := sha256.New()
	snap, problems := registry.LoadWith(digestFS{os.DirFS(r.schemasDir), digest}, r.conversionsFS(digest), registry.LoadOptions{
		Previous: prev.snap, APIDefinitions: r.api, APIConversions: r.rules, RuntimeConfig: r.opts.RuntimeConfig,
		CheckChange: r.checkChange(ctx, checks), Progress: r.opts.Progress, Webhooks: r.opts.Webhooks,
		CheckAdmission: r.opts.CheckAdmission,
	})
	digestAPI(digest, r.apiSums)
	digestRules(digest, r.rules)
	next := &build{snap: snap, problems: problems, checks: checks.current(snap), digest: string(digest.Sum(nil)),
		unmatched: r.opts.RuntimeConfig.Unmatched(snap)}
	r.report(prev, next) // first, so that whoever Changed wakes finds the metrics current
	r.publish(next)
	if r.opts.OnSwap != nil {
		r.opts.OnSwap(snap)
	}
	return r.unreadable(problems)
}

// conversionsFS is the conversions folder, read into digest; nil when
// there is none.
func (r *Reloader) conversionsFS(digest hash.Hash) fs.FS {
	if r.conversionsDir == "" {
		return nil
	}
	return digestFS{os.DirFS(r.conversionsDir), digest}
}

// publish swaps the snapshot in and wakes whoever waits on Changed.
func (r *Reloader) publish(b *build) {
	// Why this order: the build is stored before the channel is closed, so
	// a goroutine woken by Changed always finds the new snapshot.
	r.current.Store(b)
	r.changedMu.Lock()
	close(r.changed)
	r.changed = make(chan struct{})
	r.changedMu.Unlock()
}

// unreadable turns the problem of a folder that cannot be read at all
// into an error.
func (r *Reloader) unreadable(problems []registry.Problem) error {
	if p, ok := unreadableFolder(problems); ok {
		return fmt.Errorf("read %s: %s", r.dirOf(p.File, p.Conversion), p.Reason)
	}
	return nil
}

// unreadableFolder finds the problem of a folder that cannot be read at
// all, if any.
func unreadableFolder(problems []registry.Problem) (registry.Problem, bool) {
	for _, p := range problems {
		if p.File == "." && !p.Warning {
			return p, true
		}
	}
	return registry.Problem{}, false
}

// dirOf is the folder a problem's or resource's File is relative to; ""
// for a definition created through the API or built in (embedded).
func (r *Reloader) dirOf(file string, conversion bool) string {
	switch {
	case registry.IsAPIFile(file), registry.IsBuiltinFile(file):
		return ""
	case conversion:
		return r.conversionsDir
	}
	return r.schemasDir
}

// pathOf is a problem's or resource's File as the user knows it.
func (r *Reloader) pathOf(file string, conversion bool) string {
	if dir := r.dirOf(file, conversion); dir != "" {
		return filepath.Join(dir, filepath.FromSlash(file))
	}
	return file
}
