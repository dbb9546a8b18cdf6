package crd

import (
	"bytes"
	"context"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/informer"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// GroupResource is the storage key of CustomResourceDefinitions, the kind
// this package serves, as schemas/ declares it.
var GroupResource = engine.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}

// version is the version of the kind the controller reads and writes.
const version = "v1"

// Definitions is what the Controller needs of the process's registry
// reloader; *reload.Reloader is one.
type Definitions interface {
	// Load returns the current snapshot.
	Load() *registry.Snapshot
	// SetAPIDefinitions replaces the definitions created through the API
	// (name → CustomResourceDefinition JSON) and rebuilds the snapshot
	// before it returns. Their Resources and Problems carry the File
	// registry.APIFilePrefix + name. It may keep the slices, which the
	// Controller never modifies (an object is replaced, not changed).
	SetAPIDefinitions(defs map[string][]byte)
	// Problems returns the problems of the current snapshot.
	Problems() []registry.Problem
	// Changed returns a channel closed at the next snapshot swap.
	Changed() <-chan struct{}
}

// Controller keeps one process's registry and the definitions' statuses in
// line with the stored CustomResourceDefinitions. Build it with New; call
// Sync once, then Run.
type Controller struct {
	service  *resource.Service
	defs     Definitions
	logger   *slog.Logger
	informer *informer.Informer
	// Now is the clock for the conditions' lastTransitionTime.
	Now func() time.Time

	// The state below belongs to the goroutine running Sync and Run, and
	// to reconcile's status writers while they run, under mu.
	mu      sync.Mutex
	objects map[string][]byte      // the definitions by name, as last read
	handed  map[string]string      // the spec hash of each, as last handed to defs
	views   map[string]string      // the status view of each, as last written or found (see writeStatus)
	parsed  map[string]*definition // what was read of each object (see pass.go)
	current *pass                  // the pass reconcile is in, if any
	judged  *pass                  // the last reconcile's (see judge.go)
	pending changes                // what changed since then
	respec  changes                // the groups whose precedence changed since the last hand
	blocked map[string]bool        // the definitions not handed (see servable)

	terminating  terminating // the definitions being deleted, read by requests too
	publishFiles bool        // see Options.PublishFiles
	// published is what the process published of each kind its files
	// serve, by definition name, as of the snapshot publishedFrom (see
	// publish.go).
	published     map[string]publication
	publishedFrom *registry.Snapshot
}

// Options are what the server says of the definitions through the API.
type Options struct {
	// DeletionProtection protects every definition as the protection
	// annotation does (see Strategy.PrepareForDelete).
	DeletionProtection bool
	// PublishFiles publishes a CustomResourceDefinition for each kind a
	// definition file serves (see publish.go): what a server does, not a
	// command that reads the definitions with files of its own.
	PublishFiles bool
}

// New returns a Controller that serves the definitions stored through
// service with defs, and registers the kind's Strategy with service, so
// that it refuses a definition the registry would refuse.
func New(service *resource.Service, defs Definitions, logger *slog.Logger, opts Options) *Controller {
	service.Register(GroupResource, Strategy{Snapshots: defs, Service: service, DeletionProtection: opts.DeletionProtection})
	c := &Controller{service: service, defs: defs, logger: logger, Now: time.Now, publishFiles: opts.PublishFiles,
		views: map[string]string{}, pending: newChanges(), respec: newChanges(), blocked: map[string]bool{}}
	c.informer = informer.New(service, defs.Changed, handler{c}, logger, "CustomResourceDefinitions")
	service.GuardCreates(c.terminating.guard)
	return c
}

// Sync lists the definitions, hands them to the registry and brings their
// statuses up to date. It does nothing while the kind is not declared.
// Errors: those of listing.
func (c *Controller) Sync(ctx context.Context) error { return c.informer.Sync(ctx) }

// Run follows the definitions from where Sync left off until ctx ends. A
// snapshot swap (a definition file changed) rewrites the statuses, as a
// file may now claim a definition's names.
func (c *Controller) Run(ctx context.Context) { c.informer.Run(ctx) }

// handler is the Controller as its informer drives it.
type handler struct{ c *Controller }

// Target resolves the kind in the current snapshot; ok is false when no
// definition file declares it.
func (h handler) Target() (resource.Target, bool) {
	r, v, ok := h.c.defs.Load().Lookup(GroupResource.Group, version, GroupResource.Resource)
	return resource.Target{Resource: r, Version: v}, ok
}

// Listed takes a full list: every definition may have changed.
func (h handler) Listed(objects map[string][]byte) {
	h.c.objects = objects
	h.c.terminating.reset(objects)
	h.c.pending.all, h.c.respec.all = true, true
}

func (h handler) Put(obj []byte)    { h.c.remember(obj) }
func (h handler) Remove(obj []byte) { h.c.forget(obj) }
func (h handler) Settle()           { h.c.hand() }

// Reconcile publishes the definitions of the kinds definition files serve
// (see publish.go) when the Controller is a server's, then writes the
// statuses.
func (h handler) Reconcile(ctx context.Context, t resource.Target) {
	if !h.c.publishFiles {
		h.c.reconcile(ctx, t)
		return
	}
	if err := h.c.publish(ctx, t, h.c.defs.Load()); err != nil && ctx.Err() == nil {
		h.c.logger.Warn("CustomResourceDefinitions of definition files not published", "err", err)
	}
	h.c.reconcile(ctx, t)
}

// hand gives the servable definitions to the registry when they or a spec
// changed since the last time: a status write (every one of ours comes
// back as an event) costs no rebuild, nor a look at every definition.
func (c *Controller) hand() {
	if c.handed == nil {
		c.respec.all = true
	}
	if !c.respec.all && len(c.respec.groups) == 0 {
		return
	}
	defs := c.servable()
	specs := make(map[string]string, len(defs))
	for name, obj := range defs {
		specs[name] = c.definitionNamed(name, obj).spec
	}
	if c.handed != nil && maps.Equal(specs, c.handed) {
		return
	}
	c.defs.SetAPIDefinitions(defs)
	c.handed = specs
}

// concurrentWrites is how many definitions reconcile and publish write at
// once. Each write waits for its commit to reach the disk; one after
// another, the statuses of 1,000 definitions created at once held the
// next ones back from being served (the informer settles the next events
// only after reconcile) for tens of seconds on a loaded machine, and
// publishing 1,000 definition files at a first start took 13 s instead of
// 2.6, while PostgreSQL commits several writes with one flush.
const concurrentWrites = 8

// atOnce runs f for every name, concurrentWrites at a time, and returns
// when all have run.
func atOnce(names []string, f func(name string)) {
	ch := make(chan string)
	var wg sync.WaitGroup
	for range min(concurrentWrites, len(names)) {
		wg.Go(func() {
			for name := range ch {
				f(name)
			}
		})
	}
	for _, name := range names {
		ch <- name
	}
	close(ch)
	wg.Wait()
}

// reconcile writes the status of every definition whose status is not
// what the current snapshot says, of those whose status may have changed
// since the last reconcile (see judge.go). A failure is logged: the next
// event or snapshot swap tries again.
func (c *Controller) reconcile(ctx context.Context, t resource.Target) {
	snap, problems := c.defs.Load(), c.defs.Problems()
	// Why one pass for all: status writes change no name, group or
	// creation time, so the index stays true while the statuses are written.
	c.current = c.newPass(snap, problems)
	defer func() { c.current = nil }()
	atOnce(c.toJudge(c.current), func(name string) {
		c.writeStatusOrRetry(ctx, t, snap, problems, name)
	})
}

// writeStatusOrRetry is writeStatus, which leaves a definition whose
// status it failed to write to the next reconcile.
func (c *Controller) writeStatusOrRetry(ctx context.Context, t resource.Target, snap *registry.Snapshot, problems []registry.Problem, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writeStatus(ctx, t, snap, problems, name); err != nil {
		c.pending.names[name] = true
		if ctx.Err() == nil {
			c.logger.Warn("CustomResourceDefinition status not written", "name", name, "err", err)
		}
	}
}

// remember keeps obj as the current state of its definition, unless what
// is kept is newer: a status write's answer and a re-read may overtake
// the watch.
func (c *Controller) remember(obj []byte) {
	name := nameOf(obj)
	old, ok := c.objects[name]
	if ok && (resourceVersion(old) > resourceVersion(obj) || bytes.Equal(old, obj)) {
		return // an equal object keeps what was read of it
	}
	c.objects[name] = obj
	c.terminating.note(obj)
	var was *definition
	if ok {
		was = c.definitionNamed(name, old)
	}
	c.noteChange(name, was, c.definitionNamed(name, obj))
}

// forget drops a deleted definition, unless what is kept is a newer one of
// the same name.
func (c *Controller) forget(obj []byte) {
	name := nameOf(obj)
	if old, ok := c.objects[name]; ok && resourceVersion(old) <= resourceVersion(obj) {
		c.noteChange(name, c.definitionNamed(name, old), nil)
		delete(c.objects, name)
		c.terminating.forget(name)
		delete(c.blocked, name)
		delete(c.views, name)
		delete(c.parsed, name)
	}
}

func nameOf(obj []byte) string { return gjson.GetBytes(obj, "metadata.name").Str }

func resourceVersion(obj []byte) int64 {
	return gjson.GetBytes(obj, "metadata.resourceVersion").Int()
}
