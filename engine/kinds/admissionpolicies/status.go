package admissionpolicies

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/tidwall/sjson"
	v1 "k8s.io/api/admissionregistration/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admissionpolicy"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// FieldManager is the manager the status is written as: kube's
// validatingadmissionpolicy-status controller's name.
const FieldManager = "validatingadmissionpolicy-status"

// statusLock names the Store lock under which one process at a time
// writes the policies' status.
const statusLock = "validatingadmissionpolicy-status"

// Snapshots gives the current registry snapshot.
type Snapshots interface {
	Load() *registry.Snapshot
}

// StatusController writes each ValidatingAdmissionPolicy's status as
// kube's validatingadmissionpolicy-status controller does: when its
// generation is newer than status.observedGeneration, it type checks the
// policy against the served kinds and writes observedGeneration and
// typeChecking.expressionWarnings, keeping the conditions (kube's
// controller sets none; clients may). Build it with Register.
type StatusController struct {
	service *resource.Service
	poked   chan struct{}
}

func newStatusController(service *resource.Service) *StatusController {
	return &StatusController{service: service, poked: make(chan struct{}, 1)}
}

// Poke makes Run look now: a policy changed, on any process.
func (c *StatusController) Poke() {
	select {
	case c.poked <- struct{}{}:
	default: // a look is due already
	}
}

// Run checks the policies when poked and every interval besides, until
// ctx ends.
func (c *StatusController) Run(ctx context.Context, snapshots Snapshots, interval time.Duration, logger *slog.Logger) {
	for {
		if err := c.Pass(ctx, snapshots.Load()); err != nil && ctx.Err() == nil {
			logger.Warn("type checking admission policies", "err", err)
		}
		select {
		case <-c.poked:
		case <-time.After(interval):
		case <-ctx.Done():
			return
		}
	}
}

// Pass writes the status of every policy whose generation is newer than
// its observedGeneration, unless another process holds the lock (it will
// look itself). Errors: those of listing and of the writes.
func (c *StatusController) Pass(ctx context.Context, snap *registry.Snapshot) error {
	r, v, ok := snap.Lookup(Group, "v1", "validatingadmissionpolicies")
	if !ok {
		return nil // switched off
	}
	t := resource.Target{Resource: r, Version: v}
	stale, err := c.stale(ctx, t)
	if err != nil || len(stale) == 0 {
		return err
	}
	release, ok, err := c.service.TryLock(ctx, statusLock)
	if err != nil || !ok {
		return err
	}
	defer release()
	for _, p := range stale {
		if err := c.write(ctx, t, p, snapshotSchemas{snap}); err != nil {
			return err
		}
	}
	return nil
}

// stalePolicy is a policy whose status is behind its generation, with
// the stored object it was read from.
type stalePolicy struct {
	policy *v1.ValidatingAdmissionPolicy
	obj    []byte
}

// stale lists the policies whose status is behind their generation.
func (c *StatusController) stale(ctx context.Context, t resource.Target) ([]stalePolicy, error) {
	var out []stalePolicy
	_, err := c.service.List(ctx, t, engine.ListOptions{}, func(b []byte) error {
		p := &v1.ValidatingAdmissionPolicy{}
		if err := json.Unmarshal(b, p); err != nil {
			return fmt.Errorf("decode policy: %w", err)
		}
		if p.Generation > p.Status.ObservedGeneration {
			out = append(out, stalePolicy{p, b})
		}
		return nil
	})
	return out, err
}

// write writes p's status through /status, at the resourceVersion it was
// read at. A policy deleted or changed meanwhile is skipped: a change
// pokes Run, which checks it again.
func (c *StatusController) write(ctx context.Context, t resource.Target, p stalePolicy, s admissionpolicy.Schemas) error {
	// typeChecking is set even without warnings: its presence says that
	// the check is done.
	status, err := json.Marshal(v1.ValidatingAdmissionPolicyStatus{ObservedGeneration: p.policy.Generation,
		TypeChecking: &v1.TypeChecking{ExpressionWarnings: admissionpolicy.TypeCheck(p.policy, s)},
		Conditions:   p.policy.Status.Conditions})
	if err != nil {
		return fmt.Errorf("encode status: %w", err)
	}
	body, err := sjson.SetRawBytes(p.obj, "status", status)
	if err != nil {
		return fmt.Errorf("set status: %w", err)
	}
	t.Subresource = "status"
	_, err = c.service.Update(ctx, t, p.policy.Name, body, resource.WriteOptions{FieldManager: FieldManager})
	if code := engine.ErrorCode(err); code == engine.CodeNotFound || code == engine.CodeConflict {
		return nil
	}
	return err
}
