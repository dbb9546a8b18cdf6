// Package serviceaccount is the ServiceAccount kind's background work, as
// kube-controller-manager's serviceaccounts-controller does it: every
// namespace that is not being deleted has a ServiceAccount named
// "default", created when the namespace is and again whenever it is
// deleted, so that `kubectl create token default` and workloads that
// name no account work in any namespace.
//
// It holds nothing: each look is two lists (the active namespaces, and
// the ServiceAccounts named default, selected by name in the store) and a
// create for each namespace that lacks one, written through the pipeline
// as a client's create. Several processes may look at once: a create that
// finds the account there already is no error.
package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// Resource is the resource the Controller keeps.
var Resource = engine.GroupResource{Resource: "serviceaccounts"}

// DefaultName is the name of the ServiceAccount every namespace has.
const DefaultName = "default"

// manager is the field manager of the Controller's creates, kube's.
const manager = "kube-controller-manager"

// Snapshots gives the current registry snapshot.
type Snapshots interface {
	Load() *registry.Snapshot
}

// Controller keeps a default ServiceAccount in every active namespace.
// Build it with Register.
type Controller struct {
	service *resource.Service
	poked   chan struct{}
}

// Register returns the Controller to run beside service: a namespace
// created, or a default ServiceAccount deleted, through service wakes it.
func Register(service *resource.Service) *Controller {
	c := &Controller{service: service, poked: make(chan struct{}, 1)}
	service.OnCreate(func(key engine.ObjectKey) {
		if key.Resource == engine.Namespaces {
			c.poke()
		}
	})
	service.OnDelete(func(key engine.ObjectKey) {
		if key.Resource == Resource && key.Name == DefaultName {
			c.poke()
		}
	})
	return c
}

// Run looks at start, when poked, and every interval besides (for
// namespaces created through another process), until ctx ends.
func (c *Controller) Run(ctx context.Context, snapshots Snapshots, interval time.Duration, logger *slog.Logger) {
	for {
		if err := c.ensure(ctx, snapshots.Load()); err != nil && ctx.Err() == nil {
			logger.Warn("creating default service accounts", "err", err)
		}
		select {
		case <-c.poked:
		case <-time.After(interval):
		case <-ctx.Done():
			return
		}
	}
}

// poke makes Run look now.
func (c *Controller) poke() {
	select {
	case c.poked <- struct{}{}:
	default: // a look is due already
	}
}

// ensure creates the default ServiceAccount of every active namespace
// that lacks one. A snapshot that serves no Namespace or ServiceAccount
// kind has nothing to keep.
func (c *Controller) ensure(ctx context.Context, snap *registry.Snapshot) error {
	nsRes, nsVer, ok := snap.Lookup("", "v1", engine.Namespaces.Resource)
	saRes, saVer, ok2 := snap.Lookup("", "v1", Resource.Resource)
	if !ok || !ok2 {
		return nil
	}
	have := map[string]bool{}
	_, err := c.service.List(ctx, resource.Target{Resource: saRes, Version: saVer}, engine.ListOptions{Fields: []engine.FieldRequirement{
		{Path: "metadata.name", Operator: engine.OpEquals, Value: DefaultName}}}, func(sa []byte) error {
		have[gjson.GetBytes(sa, "metadata.namespace").String()] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("list default service accounts: %w", err)
	}
	var missing []string
	_, err = c.service.List(ctx, resource.Target{Resource: nsRes, Version: nsVer}, engine.ListOptions{}, func(ns []byte) error {
		name := gjson.GetBytes(ns, "metadata.name").String()
		if !have[name] && !gjson.GetBytes(ns, "metadata.deletionTimestamp").Exists() {
			missing = append(missing, name)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list namespaces: %w", err)
	}
	var errs []error
	for _, ns := range missing {
		errs = append(errs, c.create(ctx, resource.Target{Resource: saRes, Version: saVer, Namespace: ns}))
	}
	return errors.Join(errs...)
}

// create creates the default ServiceAccount of t's namespace; one there
// already, or a namespace that went meanwhile, is no error.
func (c *Controller) create(ctx context.Context, t resource.Target) error {
	body, err := sjson.SetBytes([]byte(`{"apiVersion":"v1","kind":"ServiceAccount"}`), "metadata.name", DefaultName)
	if err != nil {
		return fmt.Errorf("build default service account: %w", err)
	}
	_, err = c.service.Create(ctx, t, body, resource.WriteOptions{FieldManager: manager})
	switch engine.ErrorCode(err) {
	case engine.CodeAlreadyExists, engine.CodeNotFound, engine.CodeForbidden: // there, or the namespace gone or going
		return nil
	}
	if err != nil {
		return fmt.Errorf("create default service account in %s: %w", t.Namespace, err)
	}
	return nil
}
