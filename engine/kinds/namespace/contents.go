package namespace

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
	"github.com/dynapi/dynapi/internal/wait"
)

// Content is an object of the core group that every namespace not being
// deleted holds, as kube-controller-manager's controllers keep them: the
// default ServiceAccount, the kube-root-ca.crt ConfigMap.
type Content struct {
	// Resource is the object's core-group resource ("serviceaccounts").
	Resource string
	// Name is its name in every namespace.
	Name string
	// Body is the object created: apiVersion, kind and what it holds
	// (metadata.name is set from Name).
	Body []byte
	// Keep are top-level fields that the stored object must have as Body
	// has them; one that differs is written back (a changed CA bundle).
	Keep []string
}

// Contents keeps each Content in every active namespace. Build it with
// NewContents. It holds nothing: a look is, for each Content, a list of
// the objects of its name (selected by name in the store) and one of the
// namespaces, then a client's write, through the pipeline, for each
// namespace that lacks it or holds it changed. Several processes may look
// at once: a create that finds the object there already is no error.
type Contents struct {
	service  *resource.Service
	contents []Content
	poked    wait.Nudge
}

// contentsManager is the field manager of the Contents' writes, kube's.
const contentsManager = "kube-controller-manager"

// NewContents returns the Contents of contents to run beside service: a
// namespace created, or one of the objects deleted, through service wakes
// it.
func NewContents(service *resource.Service, contents ...Content) *Contents {
	c := &Contents{service: service, contents: contents, poked: wait.NewNudge()}
	service.OnCreate(func(key engine.ObjectKey) {
		if key.Resource == engine.Namespaces {
			c.poked.Poke()
		}
	})
	service.OnDelete(func(key engine.ObjectKey) {
		for _, content := range contents {
			if key.Resource.Group == "" && key.Resource.Resource == content.Resource && key.Name == content.Name {
				c.poked.Poke()
			}
		}
	})
	return c
}

// Run looks at start, when poked, and every interval besides (for
// namespaces created and objects changed through another process, and
// objects changed through this one), until ctx ends.
func (c *Contents) Run(ctx context.Context, snapshots Snapshots, interval time.Duration, logger *slog.Logger) {
	var backoff wait.Backoff
	for {
		err := c.look(ctx, snapshots.Load())
		if err != nil && ctx.Err() == nil {
			logger.Warn("keeping namespace contents", "err", err)
		}
		if !c.poked.Pause(ctx, backoff.After(err, interval)) {
			return
		}
	}
}

// look writes every Content where it is missing or changed. A snapshot
// that serves no Namespace kind, or not a Content's kind, has nothing to
// keep of it.
func (c *Contents) look(ctx context.Context, snap *registry.Snapshot) error {
	res, ver, ok := snap.Lookup("", "v1", engine.Namespaces.Resource)
	if !ok {
		return nil
	}
	var active []string
	_, err := c.service.List(ctx, resource.Target{Resource: res, Version: ver}, engine.ListOptions{}, func(ns []byte) error {
		if !gjson.GetBytes(ns, "metadata.deletionTimestamp").Exists() {
			active = append(active, gjson.GetBytes(ns, "metadata.name").String())
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list namespaces: %w", err)
	}
	var errs []error
	for _, content := range c.contents {
		if res, ver, ok := snap.Lookup("", "v1", content.Resource); ok {
			errs = append(errs, c.keep(ctx, resource.Target{Resource: res, Version: ver}, content, active))
		}
	}
	return errors.Join(errs...)
}

// keep writes content in each of namespaces that lacks it or holds it
// changed.
func (c *Contents) keep(ctx context.Context, t resource.Target, content Content, namespaces []string) error {
	stored := map[string][]byte{}
	_, err := c.service.List(ctx, t, engine.ListOptions{Fields: []engine.FieldRequirement{
		{Path: "metadata.name", Operator: engine.OpEquals, Value: content.Name}}}, func(obj []byte) error {
		stored[gjson.GetBytes(obj, "metadata.namespace").String()] = obj
		return nil
	})
	if err != nil {
		return fmt.Errorf("list %s %s: %w", content.Resource, content.Name, err)
	}
	var errs []error
	for _, ns := range namespaces {
		t.Namespace = ns
		obj, ok := stored[ns]
		switch {
		case !ok:
			errs = append(errs, c.create(ctx, t, content))
		case content.changed(obj):
			errs = append(errs, c.restore(ctx, t, content))
		}
	}
	return errors.Join(errs...)
}

// changed reports whether obj holds a kept field otherwise than Body.
func (content Content) changed(obj []byte) bool {
	for _, f := range content.Keep {
		if gjson.GetBytes(obj, f).Raw != gjson.GetBytes(content.Body, f).Raw {
			return true
		}
	}
	return false
}

// create creates content in t's namespace; one there already, or a
// namespace gone or going meanwhile, is no error.
func (c *Contents) create(ctx context.Context, t resource.Target, content Content) error {
	body, err := sjson.SetBytes(content.Body, "metadata.name", content.Name)
	if err != nil {
		return fmt.Errorf("build %s %s: %w", content.Resource, content.Name, err)
	}
	_, err = c.service.Create(ctx, t, body, resource.WriteOptions{FieldManager: contentsManager})
	return ignoreGone(err, "create", t, content)
}

// restore writes the kept fields back, with a JSON patch (add replaces).
func (c *Contents) restore(ctx context.Context, t resource.Target, content Content) error {
	patch := []byte("[]")
	for i, f := range content.Keep {
		op := map[string]any{"op": "add", "path": "/" + f, "value": gjson.GetBytes(content.Body, f).Value()}
		var err error
		if patch, err = sjson.SetBytes(patch, fmt.Sprint(i), op); err != nil {
			return fmt.Errorf("build patch of %s %s: %w", content.Resource, content.Name, err)
		}
	}
	_, err := c.service.Patch(ctx, t, content.Name, resource.JSONPatch, patch, resource.WriteOptions{FieldManager: contentsManager})
	return ignoreGone(err, "restore", t, content)
}

// ignoreGone drops the errors of a write that found the object there
// already or gone, or its namespace gone or going.
func ignoreGone(err error, verb string, t resource.Target, content Content) error {
	switch engine.ErrorCode(err) {
	case engine.CodeAlreadyExists, engine.CodeNotFound, engine.CodeForbidden:
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s %s in %s: %w", verb, content.Resource, content.Name, t.Namespace, err)
	}
	return nil
}
