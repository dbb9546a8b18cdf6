package conversionrules

import (
	"bytes"
	"context"
	"log/slog"
	"maps"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/informer"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// GroupResource is the storage key of ConversionRules, as the built-in
// definition declares it.
var GroupResource = engine.GroupResource{Group: "dynapi.dev", Resource: "conversionrules"}

// version is the version of the kind the Controller reads and writes.
const version = "v1alpha1"

// Definitions is what the Controller needs of the process's registry
// reloader; *reload.Reloader is one.
type Definitions interface {
	// Load returns the current snapshot.
	Load() *registry.Snapshot
	// SetAPIConversions replaces the rules created through the API (name
	// → rules document JSON) and swaps in a snapshot built with them
	// before it returns. It may keep the slices, which the Controller
	// never modifies.
	SetAPIConversions(rules map[string][]byte)
	// Problems returns the problems of the current snapshot.
	Problems() []registry.Problem
	// Changed returns a channel closed at the next snapshot swap.
	Changed() <-chan struct{}
}

// Controller keeps one process's conversion rules and the objects'
// statuses in line with the stored ConversionRules. Build it with New;
// call Sync once, then Run.
type Controller struct {
	service  *resource.Service
	defs     Definitions
	logger   *slog.Logger
	informer *informer.Informer
	// Now is the clock for the condition's lastTransitionTime.
	Now func() time.Time

	// The state below belongs to the goroutine running Sync and Run.
	objects map[string][]byte // the objects by name, as last read
	handed  map[string][]byte // the rules of each, as last handed to defs
	views   map[string]string // the condition of each, as last written or found (see writeStatus)
}

// New returns a Controller that serves the rules stored through service
// with defs, and registers the kind's Strategy with service, so that it
// refuses rules `dynapi check` would refuse.
func New(service *resource.Service, defs Definitions, logger *slog.Logger) *Controller {
	service.Register(GroupResource, Strategy{defs: defs})
	// handed starts empty, as the reloader's rules do: a start without
	// rules costs no rebuild of the definitions.
	c := &Controller{service: service, defs: defs, logger: logger, Now: time.Now,
		handed: map[string][]byte{}, views: map[string]string{}}
	c.informer = informer.New(service, defs.Changed, handler{c}, logger, "ConversionRules")
	return c
}

// Sync lists the objects, hands their rules to the registry and brings
// their statuses up to date. It does nothing while the kind is not served.
// Errors: those of listing.
func (c *Controller) Sync(ctx context.Context) error { return c.informer.Sync(ctx) }

// Run follows the objects from where Sync left off until ctx ends. A
// snapshot swap (a file changed, a definition was created) rewrites the
// statuses, as a rules file may now win, or the kind be served.
func (c *Controller) Run(ctx context.Context) { c.informer.Run(ctx) }

// handler is the Controller as its informer drives it.
type handler struct{ c *Controller }

// Target resolves the kind in the current snapshot; ok is false while it
// is not served (switched off by --runtime-config).
func (h handler) Target() (resource.Target, bool) {
	r, v, ok := h.c.defs.Load().Lookup(GroupResource.Group, version, GroupResource.Resource)
	return resource.Target{Resource: r, Version: v}, ok
}

func (h handler) Listed(objects map[string][]byte)                 { h.c.objects = objects }
func (h handler) Put(obj []byte)                                   { h.c.remember(obj) }
func (h handler) Remove(obj []byte)                                { h.c.forget(obj) }
func (h handler) Settle()                                          { h.c.hand() }
func (h handler) Reconcile(ctx context.Context, t resource.Target) { h.c.reconcile(ctx, t) }

// hand gives the objects' rules to the registry when they changed since
// the last time: a status write (every one comes back as an event) costs
// no rebuild.
func (c *Controller) hand() {
	rules := make(map[string][]byte, len(c.objects))
	for name, obj := range c.objects {
		rules[name] = specOf(obj)
	}
	if maps.EqualFunc(rules, c.handed, bytes.Equal) {
		return
	}
	c.defs.SetAPIConversions(rules)
	c.handed = rules
}

// reconcile writes the status of every object whose condition is not what
// the current snapshot says. A failure is logged: the next event or
// snapshot swap tries again.
func (c *Controller) reconcile(ctx context.Context, t resource.Target) {
	snap, problems := c.defs.Load(), c.defs.Problems()
	for name := range c.objects {
		if err := c.writeStatus(ctx, t, snap, problems, name); err != nil && ctx.Err() == nil {
			c.logger.Warn("ConversionRules status not written", "name", name, "err", err)
		}
	}
}

// remember keeps obj as the current state of its object, unless what is
// kept is newer: a status write's answer may overtake the watch.
func (c *Controller) remember(obj []byte) {
	name := nameOf(obj)
	if old, ok := c.objects[name]; ok && resourceVersion(old) > resourceVersion(obj) {
		return
	}
	c.objects[name] = obj
}

// forget drops a deleted object, unless what is kept is a newer one of
// the same name.
func (c *Controller) forget(obj []byte) {
	name := nameOf(obj)
	if old, ok := c.objects[name]; ok && resourceVersion(old) <= resourceVersion(obj) {
		delete(c.objects, name)
		delete(c.views, name)
	}
}

// specOf is an object's spec: its rules document.
func specOf(obj []byte) []byte { return []byte(gjson.GetBytes(obj, "spec").Raw) }

func nameOf(obj []byte) string { return gjson.GetBytes(obj, "metadata.name").Str }

func resourceVersion(obj []byte) int64 {
	return gjson.GetBytes(obj, "metadata.resourceVersion").Int()
}
