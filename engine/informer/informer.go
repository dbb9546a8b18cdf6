// Package informer lists one kind's stored objects, then watches them, and
// hands every change to a Handler, as client-go's informers feed a
// controller: what every process needs to follow the objects that
// configure it (CustomResourceDefinitions, ConversionRules, admission
// policies and webhook configurations, RBAC). Whenever the watch ends (the
// history it needs was compacted, the database went away), it pauses and
// lists again. A Set follows several kinds for one consumer.
//
// It reads through the write pipeline's Service, as a client would, and
// wakes on snapshot swaps too: a definition file that changed may change
// what the handler makes of the same objects.
package informer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/internal/wait"
)

// Handler is one controller's state of the objects it follows. The
// Informer calls it from the goroutine running Sync and Run only.
type Handler interface {
	// Target resolves the kind in the current snapshot; ok is false while
	// it is not served.
	Target() (t resource.Target, ok bool)
	// Listed replaces what the handler holds with a full list, by Key.
	// It may keep the objects: they are never modified.
	Listed(objects map[string][]byte)
	// Put keeps an added or modified object; Remove drops a deleted one.
	Put(obj []byte)
	Remove(obj []byte)
	// Settle is called after a list, and after each burst of events: the
	// handler hands on what changed (one rebuild per burst).
	Settle()
	// Reconcile is called after Settle, and after each snapshot swap.
	Reconcile(ctx context.Context, t resource.Target)
}

// Informer follows one kind for a Handler. Build it with New; call Sync
// once, then Run.
type Informer struct {
	service *resource.Service
	changed func() <-chan struct{} // a channel closed at the next snapshot swap
	handler Handler
	logger  *slog.Logger
	what    string // the kind's plural, in logs and errors: "ConversionRules"
	// Retry is the pause before listing again after a watch failed.
	Retry time.Duration

	// The state below belongs to the goroutine running Sync and Run.
	rv     int64 // the resourceVersion the handler is current at
	listed bool  // whether the handler holds a list, not what a failure left

	ready chan struct{} // closed at the first list
}

// New returns an Informer of the objects handler's Target names, read
// through service; changed returns a channel closed at the next snapshot
// swap (reload.Reloader.Changed is one). what names the kind in logs.
func New(service *resource.Service, changed func() <-chan struct{}, handler Handler, logger *slog.Logger, what string) *Informer {
	return &Informer{service: service, changed: changed, handler: handler, logger: logger, what: what, Retry: time.Second,
		ready: make(chan struct{})}
}

// Key is the key of a stored object in the maps handed to Listed:
// "namespace/name", or "name" when it has no namespace, as client-go's
// MetaNamespaceKeyFunc makes it.
func Key(obj []byte) string {
	meta := gjson.GetBytes(obj, "metadata")
	name := meta.Get("name").Str
	if ns := meta.Get("namespace").Str; ns != "" {
		return ns + "/" + name
	}
	return name
}

// WaitSynced waits until the objects were listed once. Errors: ctx's.
func (in *Informer) WaitSynced(ctx context.Context) error {
	select {
	case <-in.ready:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s not listed: %w", in.what, ctx.Err())
	}
}

var (
	errNotListed  = errors.New("not listed")
	errWatchEnded = errors.New("the watch ended")
)

// Sync lists the objects and hands them to the handler (Listed, Settle,
// Reconcile). It does nothing while the kind is not served. Errors: those
// of listing.
func (in *Informer) Sync(ctx context.Context) error {
	in.listed = false
	t, ok := in.handler.Target()
	if !ok {
		return nil
	}
	objects := map[string][]byte{}
	meta, err := in.service.List(ctx, t, engine.ListOptions{}, func(obj []byte) error {
		objects[Key(obj)] = bytes.Clone(obj) // the list may reuse its buffers
		return nil
	})
	if err != nil {
		return fmt.Errorf("list %s: %w", in.what, err)
	}
	in.rv, in.listed = meta.ResourceVersion, true
	in.handler.Listed(objects)
	in.handler.Settle()
	in.handler.Reconcile(ctx, t)
	select {
	case <-in.ready:
	default:
		close(in.ready)
	}
	return nil
}

// Run follows the objects from where Sync left off (it lists first when
// Sync was not called or found nothing to list) until ctx ends.
func (in *Informer) Run(ctx context.Context) {
	if !in.listed {
		in.resync(ctx)
	}
	for {
		err := in.follow(ctx)
		if ctx.Err() != nil {
			return
		}
		if !errors.Is(err, errNotListed) {
			in.logger.Warn("watching "+in.what, "err", err)
		}
		if !wait.Sleep(ctx, in.Retry) {
			return
		}
		in.resync(ctx)
	}
}

// resync is Sync, logging its failure: Run tries again after Retry.
func (in *Informer) resync(ctx context.Context) {
	if err := in.Sync(ctx); err != nil && ctx.Err() == nil {
		in.logger.Warn("syncing "+in.what, "err", err)
	}
}

// follow applies the watch's events and snapshot swaps until the watch
// ends. While the kind is not served, it waits for a swap that may serve
// it; when the last Sync failed, it returns at once.
func (in *Informer) follow(ctx context.Context) error {
	changed := in.changed()
	t, ok := in.handler.Target()
	if !ok {
		select {
		case <-changed:
		case <-ctx.Done():
		}
		return errNotListed
	}
	if !in.listed {
		return errNotListed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the watch's goroutine
	events, err := in.service.Watch(ctx, t, resource.WatchOptions{
		List: engine.ListOptions{ResourceVersion: strconv.FormatInt(in.rv, 10)}})
	if err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		case ev, ok := <-events:
			if err := in.applyAll(ctx, ev, ok, events); err != nil {
				return err
			}
			in.handler.Settle()
		}
		// Taken before Reconcile reads the snapshot, so that no swap
		// after that read goes unnoticed.
		changed = in.changed()
		in.handler.Reconcile(ctx, t)
	}
}

// A watch hands its events on through a channel of 16, so a burst of
// changes (kubectl apply of a folder of 1,000 CRDs) reaches the handler in
// pieces of 16 a few microseconds apart, and each piece would cost it a
// rebuild of everything it serves. So a burst ends only when no event
// follows within burstGap, or after maxBurst, which bounds how late the
// first change of a steady stream is settled.
const (
	burstGap = 5 * time.Millisecond
	maxBurst = 100 * time.Millisecond
)

// applyAll applies ev and every event that follows it within a burst
// (see burstGap), so that a burst of changes costs one Settle. ok is false
// when events is closed.
func (in *Informer) applyAll(ctx context.Context, ev resource.WatchEvent, ok bool, events <-chan resource.WatchEvent) error {
	end := time.Now().Add(maxBurst)
	gap := time.NewTimer(burstGap)
	defer gap.Stop()
	for {
		if err := in.apply(ev, ok); err != nil {
			return err
		}
		if time.Now().After(end) {
			return nil
		}
		gap.Reset(burstGap)
		select {
		case ev, ok = <-events:
		case <-gap.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// apply hands one event to the handler.
func (in *Informer) apply(ev resource.WatchEvent, ok bool) error {
	switch {
	case !ok:
		in.listed = false
		return errWatchEnded
	case ev.Type == engine.EventError:
		in.listed = false
		return ev.Err
	case ev.Type == engine.EventDeleted:
		in.handler.Remove(ev.Object)
	case ev.Type == engine.EventAdded || ev.Type == engine.EventModified:
		in.handler.Put(ev.Object)
	}
	in.rv = max(in.rv, gjson.GetBytes(ev.Object, "metadata.resourceVersion").Int())
	return nil
}
