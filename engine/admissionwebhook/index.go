package admissionwebhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/internal/wait"
)

// Snapshots hands out the current registry snapshot.
type Snapshots interface {
	Load() *registry.Snapshot
}

// Index follows the webhook configurations stored through a
// resource.Service and publishes their compiled webhooks. A change
// through any process reaches it through the watch; a watch that ends is
// restarted with a fresh list after Retry.
type Index struct {
	// Retry is the pause before a list and watch that ended is restarted.
	Retry time.Duration

	service   *resource.Service
	snapshots Snapshots
	logger    *slog.Logger
	snap      atomic.Pointer[snapshot]

	mu     sync.Mutex // guards objs and synced; held while compiling
	objs   [2]map[string][]byte
	synced [2]bool
	ready  chan struct{} // closed once both kinds were listed
}

// snapshot is the webhooks in force, each list in kube's order:
// configurations by name, webhooks in their order.
type snapshot struct {
	mutating, validating []*hook
}

// kinds are the followed resources; the index of each is its slot in objs.
var kinds = [2]struct {
	resource string
	mutating bool
}{{"mutatingwebhookconfigurations", true}, {"validatingwebhookconfigurations", false}}

// NewIndex returns an Index with no webhooks; Run fills it.
func NewIndex(service *resource.Service, snapshots Snapshots, logger *slog.Logger) *Index {
	x := &Index{Retry: time.Second, service: service, snapshots: snapshots, logger: logger, ready: make(chan struct{})}
	x.objs = [2]map[string][]byte{{}, {}}
	x.snap.Store(&snapshot{})
	return x
}

// Run follows both kinds until ctx ends.
func (x *Index) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for k := range kinds {
		wg.Go(func() { x.follow(ctx, k) })
	}
	wg.Wait()
}

// WaitSynced waits until both kinds were listed once.
func (x *Index) WaitSynced(ctx context.Context) error {
	select {
	case <-x.ready:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("webhook configurations not listed: %w", ctx.Err())
	}
}

func (x *Index) follow(ctx context.Context, k int) {
	for {
		err := x.listWatch(ctx, k)
		if ctx.Err() != nil {
			return
		}
		x.logger.Warn("watching webhook configurations; listing again", "resource", kinds[k].resource, "err", err)
		if !wait.Sleep(ctx, x.Retry) {
			return
		}
	}
}

var errWatchEnded = errors.New("the watch ended")

// listWatch lists kind k, replaces what the index held of it, then
// applies its watch's events until the watch ends.
func (x *Index) listWatch(ctx context.Context, k int) error {
	res, ver, ok := x.snapshots.Load().Lookup(Group, "v1", kinds[k].resource)
	if !ok {
		return fmt.Errorf("%s.%s/v1 is not served", kinds[k].resource, Group)
	}
	t := resource.Target{Resource: res, Version: ver}
	listed := map[string][]byte{}
	meta, err := x.service.List(ctx, t, engine.ListOptions{}, func(b []byte) error {
		listed[nameOf(b)] = b
		return nil
	})
	if err != nil {
		return err
	}
	x.replace(k, listed)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := x.service.Watch(ctx, t, resource.WatchOptions{
		List: engine.ListOptions{ResourceVersion: strconv.FormatInt(meta.ResourceVersion, 10)}})
	if err != nil {
		return err
	}
	for ev := range events {
		if err := x.apply(k, ev); err != nil {
			return err
		}
	}
	return errWatchEnded
}

// replace sets everything the index holds of kind k.
func (x *Index) replace(k int, listed map[string][]byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.objs[k] = listed
	x.synced[k] = true
	x.compileLocked()
	if x.synced[0] && x.synced[1] {
		select {
		case <-x.ready:
		default:
			close(x.ready)
		}
	}
}

// apply applies one event of kind k.
func (x *Index) apply(k int, ev resource.WatchEvent) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	switch ev.Type {
	case engine.EventError:
		return ev.Err
	case engine.EventDeleted:
		delete(x.objs[k], nameOf(ev.Object))
	case engine.EventAdded, engine.EventModified:
		x.objs[k][nameOf(ev.Object)] = ev.Object
	default:
		return nil // a bookmark
	}
	x.compileLocked()
	return nil
}

// compileLocked publishes the webhooks of the configurations held.
func (x *Index) compileLocked() {
	var s snapshot
	for k := range kinds {
		names := make([]string, 0, len(x.objs[k]))
		for name := range x.objs[k] {
			names = append(names, name)
		}
		slices.SortFunc(names, strings.Compare) // kube sorts configurations by name
		for _, name := range names {
			hooks, err := compileConfig(x.objs[k][name], kinds[k].mutating)
			if err != nil {
				x.logger.Warn("webhook configuration left out", "resource", kinds[k].resource, "name", name, "err", err)
				continue
			}
			if kinds[k].mutating {
				s.mutating = append(s.mutating, hooks...)
			} else {
				s.validating = append(s.validating, hooks...)
			}
		}
	}
	x.snap.Store(&s)
}

// nameOf is a stored object's name.
func nameOf(body []byte) string { return gjson.GetBytes(body, "metadata.name").String() }
