package rbac

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/internal/wait"
)

// Group is the API group of the RBAC kinds.
const Group = "rbac.authorization.k8s.io"

// Snapshots hands out the current registry snapshot.
type Snapshots interface {
	Load() *registry.Snapshot
}

// Index follows the RBAC objects stored through a resource.Service and
// keeps their compiled policy. A change through any process reaches it
// through the watch (within the store's notification delay); a watch that
// ends is restarted with a fresh list after Retry.
type Index struct {
	// Retry is the pause before a list and watch that ended is restarted.
	Retry time.Duration

	service   *resource.Service
	snapshots Snapshots
	logger    *slog.Logger
	policy    atomic.Pointer[policy]

	mu     sync.Mutex // guards objs and synced; held while compiling
	objs   objects
	synced map[string]bool
	ready  chan struct{} // closed once every kind was listed
}

// kinds are the followed resources, with how to keep an object of each.
var kinds = []kindOf{
	{"roles", "Role", func(o *objects, k string, b []byte) error { return decodeInto(o.roles, k, b) }, func(o *objects, k string) { delete(o.roles, k) }},
	{"clusterroles", "ClusterRole", func(o *objects, k string, b []byte) error { return decodeInto(o.clusterRoles, k, b) }, func(o *objects, k string) { delete(o.clusterRoles, k) }},
	{"rolebindings", "RoleBinding", func(o *objects, k string, b []byte) error { return decodeInto(o.roleBindings, k, b) }, func(o *objects, k string) { delete(o.roleBindings, k) }},
	{"clusterrolebindings", "ClusterRoleBinding", func(o *objects, k string, b []byte) error { return decodeInto(o.clusterRoleBindings, k, b) }, func(o *objects, k string) { delete(o.clusterRoleBindings, k) }},
}

// kindOf is one followed kind.
type kindOf struct {
	resource, kind string
	set            func(o *objects, key string, body []byte) error
	del            func(o *objects, key string)
}

func decodeInto[T any](m map[string]*T, key string, body []byte) error {
	v := new(T)
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("decode %s: %w", key, err)
	}
	m[key] = v
	return nil
}

// New returns an Index; Run fills it.
func New(service *resource.Service, snapshots Snapshots, logger *slog.Logger) *Index {
	x := &Index{Retry: time.Second, service: service, snapshots: snapshots, logger: logger,
		synced: map[string]bool{}, ready: make(chan struct{})}
	x.objs = objects{roles: map[string]*rbacv1.Role{}, clusterRoles: map[string]*rbacv1.ClusterRole{},
		roleBindings: map[string]*rbacv1.RoleBinding{}, clusterRoleBindings: map[string]*rbacv1.ClusterRoleBinding{}}
	x.policy.Store(compile(&x.objs))
	return x
}

// Run follows every RBAC kind until ctx ends.
func (x *Index) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range kinds {
		wg.Go(func() { x.follow(ctx, i) })
	}
	wg.Wait()
}

// WaitSynced waits until every kind was listed once.
func (x *Index) WaitSynced(ctx context.Context) error {
	select {
	case <-x.ready:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("RBAC objects not listed: %w", ctx.Err())
	}
}

func (x *Index) follow(ctx context.Context, k int) {
	for {
		err := x.listWatch(ctx, k)
		if ctx.Err() != nil {
			return
		}
		x.logger.Warn("watching RBAC objects; listing again", "resource", kinds[k].resource, "err", err)
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
		listed[objectKey(b)] = b
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
		if err := x.apply(k, ev, events); err != nil {
			return err
		}
	}
	return errWatchEnded
}

// replace sets everything the index holds of kind k.
func (x *Index) replace(k int, listed map[string][]byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	switch kinds[k].resource {
	case "roles":
		clear(x.objs.roles)
	case "clusterroles":
		clear(x.objs.clusterRoles)
	case "rolebindings":
		clear(x.objs.roleBindings)
	case "clusterrolebindings":
		clear(x.objs.clusterRoleBindings)
	}
	for key, b := range listed {
		if err := kinds[k].set(&x.objs, key, b); err != nil {
			x.logger.Warn("RBAC object left out", "resource", kinds[k].resource, "err", err)
		}
	}
	x.synced[kinds[k].resource] = true
	x.compileLocked()
	if len(x.synced) == len(kinds) {
		select {
		case <-x.ready:
		default:
			close(x.ready)
		}
	}
}

// apply applies ev and every event already waiting behind it, then
// compiles once.
func (x *Index) apply(k int, ev resource.WatchEvent, events <-chan resource.WatchEvent) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.compileLocked()
	for {
		switch ev.Type {
		case engine.EventError:
			return ev.Err
		case engine.EventDeleted:
			kinds[k].del(&x.objs, objectKey(ev.Object))
		case engine.EventAdded, engine.EventModified:
			if err := kinds[k].set(&x.objs, objectKey(ev.Object), ev.Object); err != nil {
				x.logger.Warn("RBAC object left out", "resource", kinds[k].resource, "err", err)
			}
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

// compileLocked publishes the policy of the objects held.
func (x *Index) compileLocked() { x.policy.Store(compile(&x.objs)) }

// objectKey is "namespace/name" of a stored object.
func objectKey(body []byte) string {
	var m struct {
		Metadata struct{ Namespace, Name string } `json:"metadata"`
	}
	_ = json.Unmarshal(body, &m) // stored objects are valid JSON
	return m.Metadata.Namespace + "/" + m.Metadata.Name
}

// Static returns an Index holding the RBAC objects docs (JSON, each with
// its kind), not following any store: for tests and benchmarks. Errors:
// BadRequest for a document that is not an RBAC object.
func Static(docs ...[]byte) (*Index, error) {
	x := New(nil, nil, slog.New(slog.DiscardHandler))
	listed := make([]map[string][]byte, len(kinds))
	for i := range listed {
		listed[i] = map[string][]byte{}
	}
	for _, d := range docs {
		var m struct{ Kind string }
		if err := json.Unmarshal(d, &m); err != nil {
			return nil, engine.Errorf(engine.CodeBadRequest, "decode RBAC object: %v", err)
		}
		i := slices.IndexFunc(kinds, func(k kindOf) bool { return k.kind == m.Kind })
		if i < 0 {
			return nil, engine.Errorf(engine.CodeBadRequest, "%q is not an RBAC kind", m.Kind)
		}
		listed[i][objectKey(d)] = d
	}
	for i := range kinds {
		x.replace(i, listed[i])
	}
	return x, nil
}
