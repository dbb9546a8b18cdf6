package storageversionmigration

import (
	"context"
	"fmt"
	"strconv"
	"time"

	svmv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/storagemigration"
)

// discoveryWait is how long a migration of a resource not served waits
// for it (a definition on its way) before it fails, as kube's.
const discoveryWait = time.Minute

// migrate runs m (nil: nothing to run), from where it is: promoted
// (Running), given the resourceVersion it migrates up to, run, and
// completed.
func (c *Controller) migrate(ctx context.Context, l *look, m *migration) error {
	if m == nil {
		return nil
	}
	if !m.running() {
		if err := c.definitionStarted(ctx, l, m); err != nil {
			return err
		}
		if err := c.update(ctx, l, m, c.condition(runningType, metav1.ConditionTrue, runningReason, runningMessage(nil, nil), 0)); err != nil {
			return err
		}
	}
	r, ok := resourceFor(l.snap, m.svm.Spec.Resource)
	if !ok {
		if c.Now().Before(m.svm.CreationTimestamp.Add(discoveryWait)) {
			l.again = true
			return nil
		}
		return c.fail(ctx, l, m, "resource does not exist in discovery")
	}
	if m.svm.Status.ResourceVersion == "" {
		if err := c.checkpoint(ctx, l, m, r); err != nil {
			return err
		}
	}
	return c.rewrite(ctx, l, m, r)
}

// checkpoint sets status.resourceVersion to the resource's current list
// resourceVersion: what the migration rewrites is what was written up to
// there (later writes stored the storage version).
func (c *Controller) checkpoint(ctx context.Context, l *look, m *migration, r *registry.Resource) error {
	meta, err := c.service.ListStored(ctx, engine.ListOptions{Resource: r.GroupResource(), Limit: 1}, func(engine.Object) error { return nil })
	if err != nil {
		return fmt.Errorf("latest resourceVersion of %s: %w", r.GroupResource(), err)
	}
	rv := strconv.FormatInt(meta.ResourceVersion, 10)
	return c.update(ctx, l, m, func(s *svmv1.StorageVersionMigrationStatus) bool {
		s.ResourceVersion = rv
		return true
	})
}

// rewrite rewrites the resource's objects, the Running message counting
// what is left after each page, and ends m: Succeeded, Failed, or, on a
// transient error (kube's: the server busy or failing, a conversion
// webhook down), still Running with the error in its message, to be tried
// again.
func (c *Controller) rewrite(ctx context.Context, l *look, m *migration, r *registry.Resource) error {
	upTo, err := strconv.ParseInt(m.svm.Status.ResourceVersion, 10, 64)
	if err != nil {
		return c.fail(ctx, l, m, fmt.Sprintf("migration encountered unhandled error: %s", err))
	}
	progress := func(rep storagemigration.Report) error {
		return c.update(ctx, l, m, c.condition(runningType, metav1.ConditionTrue, runningReason, runningMessage(&rep, nil), 0))
	}
	report, err := storagemigration.Run(ctx, c.service, r, storagemigration.Options{Batch: c.Batch, UpTo: upTo, Progress: progress})
	switch {
	case err == nil:
		return c.succeed(ctx, l, m, report)
	case ctx.Err() != nil:
		return err
	case engine.ErrorCode(err) == engine.CodeNotFound:
		return nil // the migration was deleted: its progress could not be written
	case transient(err):
		// Not logged each time it is tried again: the status says it.
		l.again = true
		return c.update(ctx, l, m, c.condition(runningType, metav1.ConditionTrue, runningReason, runningMessage(&report, err), 0))
	}
	msg := fmt.Sprintf("%d/%d not yet migrated. migration encountered unhandled error: %s", report.Pending(), report.Total, err)
	return c.end(ctx, l, m, c.condition(runningType, metav1.ConditionTrue, runningReason, runningMessage(&report, nil), 0),
		c.condition(failedType, metav1.ConditionTrue, failedReason, msg, 0))
}

// succeed marks m Succeeded and completes it.
func (c *Controller) succeed(ctx context.Context, l *look, m *migration, report storagemigration.Report) error {
	return c.end(ctx, l, m, c.condition(runningType, metav1.ConditionTrue, runningReason, runningMessage(&report, nil), 0),
		c.condition(succeededType, metav1.ConditionTrue, succeededReason, completed, 0))
}

// fail marks m Failed, with message, and completes it.
func (c *Controller) fail(ctx context.Context, l *look, m *migration, message string) error {
	return c.end(ctx, l, m, c.condition(failedType, metav1.ConditionTrue, failedReason, message, 0))
}

// end writes m's last conditions, then completes it.
func (c *Controller) end(ctx context.Context, l *look, m *migration, changes ...change) error {
	if err := c.update(ctx, l, m, changes...); err != nil {
		return err
	}
	return c.complete(ctx, l, m)
}

// complete is kube's runner's clean-up of an ended migration: the
// definition's migration finished (its storedVersions trimmed after a
// success), then Running set False.
func (c *Controller) complete(ctx context.Context, l *look, m *migration) error {
	if err := c.definitionFinished(ctx, l, m); err != nil {
		return err
	}
	return c.update(ctx, l, m, c.condition(runningType, metav1.ConditionFalse, completedReason, completed, m.svm.Generation))
}

// transient reports whether err is one kube's migrator waits out: the
// server timing out, throttling, unavailable or failing.
func transient(err error) bool {
	switch engine.ErrorCode(err) {
	case engine.CodeTimeout, engine.CodeTooManyRequests, engine.CodeUnavailable, engine.CodeInternal:
		return true
	}
	return false
}

// resourceFor finds the resource gr names, when some version of it is
// served: what kube's migrator finds through discovery.
func resourceFor(snap *registry.Snapshot, gr metav1.GroupResource) (*registry.Resource, bool) {
	for _, r := range snap.Resources() {
		if r.Group != gr.Group || r.Plural != gr.Resource {
			continue
		}
		for _, v := range r.Versions {
			if v.Served {
				return r, true
			}
		}
	}
	return nil, false
}
