package httpapi

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kubeproto"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/table"
)

// defaultMinRequestTimeout is kube-apiserver's --min-request-timeout: a
// watch without timeoutSeconds ends after a random time between it and
// twice it, so that long-lived clients spread their reconnections across
// servers.
const defaultMinRequestTimeout = 30 * time.Minute

// maxTimeoutSeconds bounds timeoutSeconds so that it cannot overflow a
// time.Duration into a negative one, which would end the watch at once:
// longer than any watch lives anyway (about 292 years).
const maxTimeoutSeconds = math.MaxInt64 / int64(time.Second)

// watchWriteTimeout is how long a watch event may take to reach the
// client's connection (the socket's buffers full: the client does not
// read) before the watch is dropped.
const watchWriteTimeout = 10 * time.Second

// defaultBookmarkInterval is how often a watch that allows bookmarks gets
// one unless Options say otherwise. kube-apiserver sends them about once
// a minute; sooner costs little here.
const defaultBookmarkInterval = 10 * time.Second

// handleWatch streams watch events as newline-delimited JSON, or as
// length-prefixed protobuf frames when protobuf was asked for, as
// kube-apiserver does for ?watch=true.
func (s *Server) handleWatch(w http.ResponseWriter, r *http.Request, req request) {
	opts, timeout, err := watchOptions(r, s.minRequestTimeout)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	opts.BookmarkInterval = s.bookmarkInterval
	f, tb, err := negotiateTable(r, req, forWatch)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if f.kind == formatYAML {
		f = format{kind: formatJSON} // watch events are JSON lines
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	events, err := s.service.Watch(ctx, req.target, opts)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// Taken before the snapshot is read again, so that no swap after that
	// read goes unseen.
	changed := s.changes()
	if !s.stillServed(req.target) {
		s.writeError(w, r, errNotFoundPath)
		return
	}
	// Counted from here, once established, so that only watches of served
	// resources make gauges, as kube-apiserver's RecordLongRunning.
	defer s.metrics.watching(r).Dec()
	flusher, _ := w.(http.Flusher)
	contentType := f.contentType()
	if f.kind == formatProtobuf {
		contentType = kubeproto.WatchMediaType
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	enc := encoding{table: tb, meta: f.meta, proto: f.kind == formatProtobuf}
	if f.kind == formatCSV {
		enc = encoding{csv: &csvEvents{cw: csv.NewWriter(w), table: tb}}
		if enc.csv.start() != nil {
			return // the client went away
		}
	}
	s.stream(w, flusher, events, changed, req.target, enc, s.metrics.watchEvents(req.target))
}

// stream writes events until they end, the client goes away, the server
// shuts down (EndWatches), or the target stops being served (its definition was removed or switched off):
// then the stream just ends, as kube-apiserver ends the watches of a
// deleted CustomResourceDefinition, and the client's next request gets 404.
// Each object goes as enc says.
// Each event sent is counted in sent.
func (s *Server) stream(w http.ResponseWriter, flusher http.Flusher, events <-chan resource.WatchEvent, changed <-chan struct{}, t resource.Target, enc encoding,
	sent eventMetrics) {
	rc := http.NewResponseController(w)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			// Why a deadline: a client that stops reading would hold its
			// watch (and what piles up for it) for as long as the watch
			// lasts. Like kube's cacher, which closes a watcher whose
			// buffer stays full past a timeout, the server drops it: a
			// failed write cancels the request, which ends the watch.
			// Unsupported (a test recorder): no bound.
			_ = rc.SetWriteDeadline(time.Now().Add(watchWriteTimeout))
			n, err := s.writeEvent(w, ev, enc)
			if err != nil {
				return // the client went away; the caller's cancel ends the watch
			}
			sent.observe(n)
			if flusher != nil {
				flusher.Flush()
			}
			_ = rc.SetWriteDeadline(time.Time{}) // an idle watch has no deadline
		case <-changed:
			changed = s.changes()
			if !s.stillServed(t) {
				return
			}
		case <-s.draining:
			return
		}
	}
}

// encoding is how the objects of watch events are sent: with table set
// (kubectl get -w asks for Tables), each as a Table of one row; with meta
// set, each as a PartialObjectMetadata of that version (bookmarks too,
// as kube-apiserver sends them); otherwise as they are. With proto set,
// events go as protobuf frames instead of JSON lines.
type encoding struct {
	table *table.Builder
	meta  string
	csv   *csvEvents // set for text/csv: rows instead of JSON events
	proto bool
}

// writeEvent writes one event as enc says, and returns the size of its
// frame (-1 for a row of CSV, which is no event's frame).
func (s *Server) writeEvent(w http.ResponseWriter, ev resource.WatchEvent, enc encoding) (int, error) {
	if enc.csv != nil {
		return -1, enc.csv.write(ev, s.errorMessage)
	}
	ev.Object = enc.object(ev)
	frame, err := s.encodeEvent(ev, enc.proto)
	if err != nil {
		s.logger.Error("watch event not encoded", "err", err)
		return 0, err
	}
	return w.Write(frame)
}

// errorMessage is what a user sees of err: its message, or "internal
// error" for an error that is not an engine.Error (which is logged).
func (s *Server) errorMessage(err error) string {
	return s.eventError(err).Message
}

// eventError is the Status of an ERROR event for err: err itself if it is
// an *engine.Error; 503 when the storage cannot be reached (client-go
// watches again after it); else an internal error, which is logged.
func (s *Server) eventError(err error) *engine.Error {
	var e *engine.Error
	switch {
	case errors.As(err, &e):
		return e
	case s.storageDown(context.Background(), err):
		s.logger.Warn("watch failed", "err", err)
		return errStorageDown
	}
	s.logger.Error("watch failed", "err", err)
	return errInternal
}

func (e encoding) object(ev resource.WatchEvent) []byte {
	switch {
	case ev.Type == engine.EventError:
		return ev.Object
	case e.meta != "":
		return partialObjectMetadata(e.meta, ev.Object)
	case e.table != nil:
		// Bookmarks too, as kube-apiserver's watch encoder transforms
		// every event: client-go's streaming list reads the end of the
		// initial events from the row's object.
		return e.table.Single(ev.Object)
	}
	return ev.Object
}

// changeNotifier is a Snapshots that tells when it swaps its snapshot;
// *reload.Reloader is one.
type changeNotifier interface {
	// Changed returns a channel closed at the next swap.
	Changed() <-chan struct{}
}

// changes returns a channel closed at the next snapshot swap; nil, which
// is never ready, when the Snapshots does not tell.
func (s *Server) changes() <-chan struct{} {
	if n, ok := s.snapshots.(changeNotifier); ok {
		return n.Changed()
	}
	return nil
}

// stillServed reports whether the current snapshot serves the target's
// resource in the target's version.
func (s *Server) stillServed(t resource.Target) bool {
	_, _, ok := s.snapshots.Load().Lookup(t.Resource.Group, t.Version.Name, t.Resource.Plural)
	return ok
}

// watchEvent is metav1.WatchEvent on the wire.
type watchEvent struct {
	Type   engine.EventType `json:"type"`
	Object json.RawMessage  `json:"object"`
}

// encodeEvent renders one event as a JSON line, or as a protobuf frame.
// Errors: an object without a protobuf form (the server's fault).
func (s *Server) encodeEvent(ev resource.WatchEvent, proto bool) ([]byte, error) {
	obj := ev.Object
	if ev.Type == engine.EventError {
		obj, _ = json.Marshal(statusFor(s.eventError(ev.Err))) // a Status always encodes
	}
	if proto {
		return kubeproto.WatchEvent(string(ev.Type), obj)
	}
	out, _ := json.Marshal(watchEvent{Type: ev.Type, Object: obj}) // obj is valid JSON from the pipeline
	return append(out, '\n'), nil
}

// watchOptions reads the query of a watch. Errors: BadRequest.
func watchOptions(r *http.Request, minTimeout time.Duration) (resource.WatchOptions, time.Duration, error) {
	var opts resource.WatchOptions
	lo, err := listOptions(r)
	if err != nil {
		return opts, 0, err
	}
	opts.List = lo
	q := requestInfoFrom(r).Query
	opts.AllowBookmarks = queryBool(q["allowWatchBookmarks"])
	if values, ok := q["sendInitialEvents"]; ok {
		send := queryBool(values)
		opts.SendInitialEvents = &send
	}
	timeout := minTimeout + time.Duration(rand.Int64N(int64(minTimeout)))
	secs, _ := timeoutSeconds(q) // listOptions refused a malformed one
	switch {
	case secs == nil, *secs == 0: // 0 is no timeout asked, as in kube-apiserver: the server's
	case *secs < 0:
		return opts, 0, engine.Errorf(engine.CodeBadRequest, "timeoutSeconds must be a non-negative integer: %q", q.Get("timeoutSeconds"))
	default:
		timeout = time.Duration(min(*secs, maxTimeoutSeconds)) * time.Second
	}
	return opts, timeout, nil
}
