// Package follow keeps a process's copy of the objects of a few
// resources current: it lists them through a resource.Service, then
// applies their watch's events, and lists again after a watch ends. A
// change through any process reaches it through the watch, within the
// store's notification delay (well under a second). It is for the small
// sets of objects that configure the server (admission policies and
// webhooks), which every process must apply to every write.
package follow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/internal/wait"
)

// Resource is one followed resource, in the version its objects are
// wanted in.
type Resource struct{ Group, Version, Resource string }

// Objects are the followed objects: per resource, body by "namespace/name".
type Objects map[Resource]map[string][]byte

// Snapshots hands out the current registry snapshot.
type Snapshots interface {
	Load() *registry.Snapshot
}

// Follower follows some resources and calls Changed with all their
// objects after each change (and once all are listed).
type Follower struct {
	// Retry is the pause before a list and watch that ended is restarted.
	Retry time.Duration

	service   *resource.Service
	snapshots Snapshots
	logger    *slog.Logger
	resources []Resource
	changed   func(Objects)

	mu     sync.Mutex // guards objs and synced; held while Changed runs
	objs   Objects
	synced map[Resource]bool
	ready  chan struct{} // closed once every resource was listed
}

// New returns a Follower of resources; Run starts it. changed receives a
// copy it may keep.
func New(service *resource.Service, snapshots Snapshots, logger *slog.Logger, resources []Resource, changed func(Objects)) *Follower {
	f := &Follower{Retry: time.Second, service: service, snapshots: snapshots, logger: logger,
		resources: resources, changed: changed, objs: Objects{}, synced: map[Resource]bool{}, ready: make(chan struct{})}
	for _, r := range resources {
		f.objs[r] = map[string][]byte{}
	}
	return f
}

// Run follows every resource until ctx ends.
func (f *Follower) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, r := range f.resources {
		wg.Go(func() { f.follow(ctx, r) })
	}
	wg.Wait()
}

// WaitSynced waits until every resource was listed once.
func (f *Follower) WaitSynced(ctx context.Context) error {
	select {
	case <-f.ready:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%v not listed: %w", f.resources, ctx.Err())
	}
}

func (f *Follower) follow(ctx context.Context, r Resource) {
	for {
		err := f.listWatch(ctx, r)
		if ctx.Err() != nil {
			return
		}
		f.logger.Warn("watching objects; listing again", "resource", r.Resource, "err", err)
		if !wait.Sleep(ctx, f.Retry) {
			return
		}
	}
}

var errWatchEnded = errors.New("the watch ended")

// listWatch lists r, replaces what the follower held of it, then applies
// its watch's events until the watch ends.
func (f *Follower) listWatch(ctx context.Context, r Resource) error {
	res, ver, ok := f.snapshots.Load().Lookup(r.Group, r.Version, r.Resource)
	if !ok {
		return fmt.Errorf("%s.%s/%s is not served", r.Resource, r.Group, r.Version)
	}
	t := resource.Target{Resource: res, Version: ver}
	listed := map[string][]byte{}
	meta, err := f.service.List(ctx, t, engine.ListOptions{}, func(b []byte) error {
		listed[objectKey(b)] = b
		return nil
	})
	if err != nil {
		return err
	}
	f.replace(r, listed)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := f.service.Watch(ctx, t, resource.WatchOptions{
		List: engine.ListOptions{ResourceVersion: strconv.FormatInt(meta.ResourceVersion, 10)}})
	if err != nil {
		return err
	}
	for ev := range events {
		if err := f.apply(r, ev, events); err != nil {
			return err
		}
	}
	return errWatchEnded
}

func (f *Follower) replace(r Resource, listed map[string][]byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.objs[r] = listed
	f.synced[r] = true
	if len(f.synced) < len(f.resources) {
		return
	}
	f.publishLocked()
	select {
	case <-f.ready:
	default:
		close(f.ready)
	}
}

// apply applies ev and every event already waiting behind it, then
// publishes once.
func (f *Follower) apply(r Resource, ev resource.WatchEvent, events <-chan resource.WatchEvent) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.publishLocked()
	for {
		switch ev.Type {
		case engine.EventError:
			return ev.Err
		case engine.EventDeleted:
			delete(f.objs[r], objectKey(ev.Object))
		case engine.EventAdded, engine.EventModified:
			f.objs[r][objectKey(ev.Object)] = ev.Object
		}
		var ok bool
		select {
		case ev, ok = <-events:
			if !ok {
				return errWatchEnded
			}
		default:
			return nil
		}
	}
}

// publishLocked hands a copy of the objects to changed, once every
// resource was listed.
func (f *Follower) publishLocked() {
	if len(f.synced) < len(f.resources) {
		return
	}
	out := make(Objects, len(f.objs))
	for r, objs := range f.objs {
		out[r] = maps.Clone(objs)
	}
	f.changed(out)
}

// objectKey is "namespace/name" of a stored object.
func objectKey(body []byte) string {
	var m struct {
		Metadata struct{ Namespace, Name string } `json:"metadata"`
	}
	_ = json.Unmarshal(body, &m) // stored objects are valid JSON
	return m.Metadata.Namespace + "/" + m.Metadata.Name
}
