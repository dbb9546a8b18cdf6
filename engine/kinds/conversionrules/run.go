package conversionrules

import (
	"context"
	"errors"
	"strconv"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/internal/wait"
)

var (
	errNotListed  = errors.New("the ConversionRules are not listed")
	errWatchEnded = errors.New("the watch ended")
)

// Run follows the objects from where Sync left off until ctx ends.
// Whenever the watch ends (the history it needs was compacted, the
// database went away), it pauses and syncs again. A snapshot swap (a file
// changed, a definition was created) rewrites the statuses, as a rules
// file may now win, or the kind be served.
func (c *Controller) Run(ctx context.Context) {
	for {
		err := c.follow(ctx)
		if ctx.Err() != nil {
			return
		}
		if !errors.Is(err, errNotListed) {
			c.logger.Warn("watching ConversionRules", "err", err)
		}
		if !wait.Sleep(ctx, c.Retry) {
			return
		}
		if err := c.Sync(ctx); err != nil && ctx.Err() == nil {
			c.logger.Warn("syncing ConversionRules", "err", err)
		}
	}
}

// follow applies the watch's events and snapshot swaps until the watch
// ends. While the kind is not served, it waits for a swap that may serve
// it; when the last Sync failed, it returns at once.
func (c *Controller) follow(ctx context.Context) error {
	changed := c.defs.Changed()
	t, ok := c.target()
	if !ok {
		select {
		case <-changed:
		case <-ctx.Done():
		}
		return errNotListed
	}
	if !c.listed {
		return errNotListed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the watch's goroutine
	events, err := c.service.Watch(ctx, t, resource.WatchOptions{
		List: engine.ListOptions{ResourceVersion: strconv.FormatInt(c.rv, 10)}})
	if err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		case ev, ok := <-events:
			if err := c.applyAll(ev, ok, events); err != nil {
				return err
			}
			c.hand()
		}
		// Taken before reconcile reads the snapshot, so that no swap
		// after that read goes unnoticed.
		changed = c.defs.Changed()
		c.reconcile(ctx, t)
	}
}

// applyAll applies ev and every event already waiting behind it, so that
// a burst of changes costs one rebuild. ok is false when events is closed.
func (c *Controller) applyAll(ev resource.WatchEvent, ok bool, events <-chan resource.WatchEvent) error {
	for {
		if err := c.apply(ev, ok); err != nil {
			return err
		}
		select {
		case ev, ok = <-events:
		default:
			return nil
		}
	}
}

// apply updates the objects with one event.
func (c *Controller) apply(ev resource.WatchEvent, ok bool) error {
	switch {
	case !ok:
		c.listed = false
		return errWatchEnded
	case ev.Type == engine.EventError:
		c.listed = false
		return ev.Err
	case ev.Type == engine.EventDeleted:
		c.forget(ev.Object)
	case ev.Type == engine.EventAdded || ev.Type == engine.EventModified:
		c.remember(ev.Object)
	}
	c.rv = max(c.rv, resourceVersion(ev.Object))
	return nil
}
