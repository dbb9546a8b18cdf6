package storageversionmigration

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"time"

	svmv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/internal/wait"
)

// Snapshots gives the current registry snapshot (*reload.Reloader and an
// atomic.Pointer have it).
type Snapshots interface {
	Load() *registry.Snapshot
}

// lockPrefix names the Store lock of one resource's migrations.
const lockPrefix = "storage-version-migration/"

// retryDelay is how soon a migration that could not go on (its resource
// not served yet, a transient error) is looked at again.
const retryDelay = time.Second

// Controller runs the StorageVersionMigrations. Build it with Register.
type Controller struct {
	service *resource.Service
	poked   wait.Nudge
	// Now is the clock of the conditions' lastTransitionTime.
	Now func() time.Time
	// Batch is how many objects a migration reads and rewrites per page,
	// its status updated after each (0: storagemigration's default).
	Batch int64
}

// Register makes service serve StorageVersionMigrations with their
// Strategy, and returns the Controller to run beside it: a migration
// created through service wakes it.
func Register(service *resource.Service) *Controller {
	c := &Controller{service: service, poked: wait.NewNudge(), Now: time.Now}
	service.Register(Resource, Strategy{created: c.poked.Poke})
	return c
}

// Run runs the migrations until ctx ends: when one is created through
// its Service, every interval besides (those created through other
// processes), and a second after one could not go on.
func (c *Controller) Run(ctx context.Context, snapshots Snapshots, interval time.Duration, logger *slog.Logger) {
	for {
		again, err := c.Pass(ctx, snapshots.Load())
		if err != nil && ctx.Err() == nil {
			logger.Warn("migrating storage versions", "err", err)
		}
		pause := interval
		if again {
			pause = min(interval, retryDelay)
		}
		if !c.poked.Pause(ctx, pause) {
			return
		}
	}
}

// look is one pass over one snapshot.
type look struct {
	snap *registry.Snapshot
	t    resource.Target // the migrations, in v1
	// again says that a migration could not go on and is to be looked at
	// again soon.
	again bool
}

// Pass looks at every migration once, and works on each resource that
// no other process works on: it finishes the migrations that ended, and
// runs (or goes on with) the oldest one not ended. again says that one
// could not go on and should be looked at soon. Errors: those of listing
// and of the writes.
func (c *Controller) Pass(ctx context.Context, snap *registry.Snapshot) (again bool, err error) {
	r, v, ok := snap.Lookup(Resource.Group, "v1", Resource.Resource)
	if !ok {
		return false, nil
	}
	l := &look{snap: snap, t: resource.Target{Resource: r, Version: v}}
	byResource := map[metav1.GroupResource][]*migration{}
	_, err = c.service.List(ctx, l.t, engine.ListOptions{}, func(obj []byte) error {
		m, err := parse(obj)
		if err == nil {
			byResource[m.svm.Spec.Resource] = append(byResource[m.svm.Spec.Resource], m)
		}
		return err
	})
	if err != nil {
		return false, err
	}
	var errs []error
	for _, gr := range slices.SortedFunc(maps.Keys(byResource), compareGroupResource) {
		if slices.ContainsFunc(byResource[gr], (*migration).pending) {
			errs = append(errs, c.advance(ctx, l, gr, byResource[gr]))
		}
	}
	return l.again, errors.Join(errs...)
}

// advance works on the migrations of one resource, under its lock.
func (c *Controller) advance(ctx context.Context, l *look, gr metav1.GroupResource, ms []*migration) error {
	release, ok, err := c.service.TryLock(ctx, lockPrefix+gr.String())
	if err != nil || !ok {
		return err
	}
	defer release()
	slices.SortFunc(ms, compareMigrations)
	var running, next *migration
	for _, m := range ms {
		// Read again under the lock: another process may have moved it on.
		err := c.reread(ctx, l, m)
		if engine.ErrorCode(err) == engine.CodeNotFound {
			continue // deleted meanwhile: nothing to do
		}
		if err != nil {
			return err
		}
		switch {
		case m.running() && m.ended():
			if err := c.complete(ctx, l, m); err != nil {
				return err
			}
		case m.running():
			running = m
		case !m.ended() && next == nil:
			next = m
		}
	}
	return c.migrate(ctx, l, cmp.Or(running, next))
}

// compareMigrations orders migrations as kube's runner promotes them: by
// creation time, then name.
func compareMigrations(a, b *migration) int {
	if c := a.svm.CreationTimestamp.Compare(b.svm.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.svm.Name, b.svm.Name)
}

func compareGroupResource(a, b metav1.GroupResource) int {
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Resource, b.Resource))
}

// conditionTypes are the migration's conditions, kube's.
var (
	runningType   = string(svmv1.MigrationRunning)
	succeededType = string(svmv1.MigrationSucceeded)
	failedType    = string(svmv1.MigrationFailed)
)
