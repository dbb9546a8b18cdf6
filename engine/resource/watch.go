package resource

import (
	"context"
	"strconv"
	"time"

	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
)

// WatchOptions are the query parameters of a watch.
type WatchOptions struct {
	// List holds the selectors, resourceVersion and resourceVersionMatch.
	List engine.ListOptions
	// SendInitialEvents, when set, says whether the current state comes
	// first as ADDED events, ended by a bookmark (the watch-list protocol).
	// Unset: the state comes first only when resourceVersion is "" or "0".
	SendInitialEvents *bool
	// AllowBookmarks asks for BOOKMARK events every BookmarkInterval.
	AllowBookmarks   bool
	BookmarkInterval time.Duration
}

// WatchEvent is one event in the target's version. For EventError, Err is
// the error to render as a Status.
type WatchEvent struct {
	Type   engine.EventType
	Object []byte
	Err    error
}

// initialEventsEnd is the annotation of the bookmark that ends the initial
// events of a watch list.
const initialEventsEnd = "k8s.io/initial-events-end"

// Watch streams the changes to the target's objects that opts selects,
// converted to the target's version. Errors (before the stream starts):
// Invalid for inconsistent options, BadRequest for a bad resourceVersion or
// field selector. Failures later end the stream with an EventError.
func (s *Service) Watch(ctx context.Context, t Target, opts WatchOptions) (<-chan WatchEvent, error) {
	initial, err := checkWatchOptions(t, opts)
	if err != nil {
		return nil, err
	}
	filter, err := newFilter(t, opts.List)
	if err != nil {
		return nil, err
	}
	start := int64(0)
	if !initial {
		if start, err = parseWatchRV(opts.List.ResourceVersion); err != nil {
			return nil, err
		}
	}
	out := make(chan WatchEvent, 16)
	w := &watcher{service: s, target: t, opts: opts, filter: filter, out: out}
	go w.run(ctx, initial, start)
	return out, nil
}

// checkWatchOptions applies kube-apiserver's rules for the watch-list
// parameters and says whether the current state is sent first.
func checkWatchOptions(t Target, opts WatchOptions) (bool, error) {
	match := opts.List.ResourceVersionMatch
	invalid := func(field, msg string) error {
		return engine.NewInvalid(t.Resource.Group, t.Resource.Kind, "", []engine.FieldError{{Type: engine.CauseForbidden, Path: field, Message: "Forbidden: " + msg}})
	}
	if opts.SendInitialEvents == nil {
		if match != "" {
			return false, invalid("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
		}
		rv := opts.List.ResourceVersion
		return rv == "" || rv == "0", nil
	}
	if match != engine.MatchNotOlderThan {
		return false, invalid("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	}
	if *opts.SendInitialEvents && !opts.AllowBookmarks {
		return false, invalid("allowWatchBookmarks", "sendInitialEvents requires setting allowWatchBookmarks to true")
	}
	return *opts.SendInitialEvents, nil
}

func parseWatchRV(rv string) (int64, error) {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n < 0 {
		return 0, engine.Errorf(engine.CodeBadRequest, "invalid resource version: %q", rv)
	}
	return n, nil
}

// watcher is one running watch.
type watcher struct {
	service *Service
	target  Target
	opts    WatchOptions
	filter  *filter
	out     chan<- WatchEvent
}

func (w *watcher) run(ctx context.Context, initial bool, start int64) {
	defer close(w.out)
	if initial {
		var err error
		if start, err = w.sendInitial(ctx); err != nil {
			w.fail(ctx, err)
			return
		}
	}
	progress := time.Duration(0)
	if w.opts.AllowBookmarks {
		progress = w.opts.BookmarkInterval
	}
	events, err := w.service.storage.Watch(ctx, engine.WatchOptions{Resource: w.target.GroupResource(),
		Namespace: w.target.Namespace, ResourceVersion: start, ProgressInterval: progress})
	if err != nil {
		w.fail(ctx, err)
		return
	}
	var batch []engine.Event // grown as batches come: most hold one event
	for ev := range events {
		// What has come meanwhile is converted with it: one call to a
		// conversion webhook per batch, none waited for.
		if !w.forwardAll(ctx, drain(events, append(batch[:0], ev))) {
			return
		}
	}
}

// maxWatchBatch bounds how many events a watch converts together.
const maxWatchBatch = 100

// drain appends to batch the events already waiting in events, without
// blocking, up to maxWatchBatch.
func drain(events <-chan engine.Event, batch []engine.Event) []engine.Event {
	for len(batch) < maxWatchBatch {
		select {
		case ev, ok := <-events:
			if !ok {
				return batch
			}
			batch = append(batch, ev)
		default:
			return batch
		}
	}
	return batch
}

// forwardAll converts, filters and sends a batch of store events. It
// returns false when the watch is over.
func (w *watcher) forwardAll(ctx context.Context, evs []engine.Event) bool {
	objs, err := w.convertAll(ctx, evs)
	if err != nil {
		w.fail(ctx, err)
		return false
	}
	for i, ev := range evs {
		if !w.forward(ctx, ev, objs[i]) {
			return false
		}
	}
	return true
}

// converted is an event's object and previous object, in the target's
// version (nil when the event has none).
type converted struct{ obj, prev []byte }

// convertAll converts the objects of evs, in one batch.
func (w *watcher) convertAll(ctx context.Context, evs []engine.Event) ([]converted, error) {
	var stored []engine.Object
	for _, ev := range evs {
		if ev.Type == engine.EventError || ev.Type == engine.EventBookmark {
			continue
		}
		stored = append(stored, ev.Object)
		if ev.Type != engine.EventDeleted && ev.Prev != nil {
			stored = append(stored, prevOf(ev))
		}
	}
	objs, err := fromStorageBatch(w.service.converter(ctx), w.target, stored)
	if err != nil {
		return nil, err
	}
	out := make([]converted, len(evs))
	for i, ev := range evs {
		if ev.Type == engine.EventError || ev.Type == engine.EventBookmark {
			continue
		}
		out[i].obj, objs = objs[0], objs[1:]
		if ev.Type != engine.EventDeleted && ev.Prev != nil {
			out[i].prev, objs = objs[0], objs[1:]
		}
	}
	return out, nil
}

// prevOf is the stored object an event replaced.
func prevOf(ev engine.Event) engine.Object {
	return engine.Object{Key: ev.Object.Key, StoredVersion: ev.PrevStoredVersion, Body: ev.Prev, Remainder: ev.PrevRemainder}
}

// sendInitial sends the current state as ADDED events and returns the
// resourceVersion it was read at.
func (w *watcher) sendInitial(ctx context.Context) (int64, error) {
	meta, err := w.service.List(ctx, w.target, w.opts.List, func(obj []byte) error {
		if !w.send(ctx, WatchEvent{Type: engine.EventAdded, Object: obj}) {
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if w.opts.SendInitialEvents != nil {
		w.send(ctx, WatchEvent{Type: engine.EventBookmark, Object: w.bookmark(meta.ResourceVersion, true)})
	}
	return meta.ResourceVersion, nil
}

// forward filters and sends one store event, its objects converted. It
// returns false when the watch is over.
func (w *watcher) forward(ctx context.Context, ev engine.Event, objs converted) bool {
	switch ev.Type {
	case engine.EventError:
		w.fail(ctx, ev.Err)
		return false
	case engine.EventBookmark:
		if !w.opts.AllowBookmarks {
			return true
		}
		return w.send(ctx, WatchEvent{Type: engine.EventBookmark, Object: w.bookmark(ev.Object.ResourceVersion, false)})
	}
	out, err := w.translate(ev, objs)
	if err != nil {
		w.fail(ctx, err)
		return false
	}
	if out.Type == "" {
		return true
	}
	return w.send(ctx, out)
}

// translate turns a store event into what this watcher sees: an object that
// starts matching the selectors is ADDED, one that stops matching DELETED.
// A zero Type means the event is not for this watcher.
func (w *watcher) translate(ev engine.Event, objs converted) (WatchEvent, error) {
	obj := objs.obj
	cur := ev.Type != engine.EventDeleted && w.filter.match(obj)
	var prevObj []byte
	prev := false
	if ev.Type == engine.EventDeleted {
		prevObj, prev = obj, w.filter.match(obj)
	} else if ev.Prev != nil {
		prevObj = objs.prev
		prev = w.filter.match(prevObj)
	}
	switch {
	case cur && prev:
		return WatchEvent{Type: engine.EventModified, Object: obj}, nil
	case cur:
		return WatchEvent{Type: engine.EventAdded, Object: obj}, nil
	case prev:
		// The last state the watcher could see, at the resourceVersion of
		// the change that made it disappear.
		gone, err := sjson.SetBytes(prevObj, "metadata.resourceVersion", strconv.FormatInt(ev.Object.ResourceVersion, 10))
		return WatchEvent{Type: engine.EventDeleted, Object: gone}, err
	}
	return WatchEvent{}, nil
}

// bookmark is the object of a BOOKMARK event: only kind, apiVersion and the
// resourceVersion (and the annotation that ends the initial events).
func (w *watcher) bookmark(rv int64, initialEnd bool) []byte {
	obj, _ := sjson.SetBytes(nil, "kind", w.target.Resource.Kind)
	obj, _ = sjson.SetBytes(obj, "apiVersion", w.target.APIVersion())
	obj, _ = sjson.SetBytes(obj, "metadata.resourceVersion", strconv.FormatInt(rv, 10))
	if initialEnd {
		obj, _ = sjson.SetBytes(obj, "metadata.annotations."+escapeKey(initialEventsEnd), "true")
	}
	return obj // setting plain strings on a fresh object cannot fail
}

func (w *watcher) send(ctx context.Context, ev WatchEvent) bool {
	select {
	case w.out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// fail ends the stream with an ERROR event, unless the watch was cancelled.
func (w *watcher) fail(ctx context.Context, err error) {
	if ctx.Err() == nil {
		w.send(ctx, WatchEvent{Type: engine.EventError, Err: err})
	}
}
