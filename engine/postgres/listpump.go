package postgres

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/dynapi/dynapi/engine"
)

// A list reads rows in one goroutine (the pump) and hands them to its
// caller's each in the caller's goroutine, through a bounded queue, so
// that a slow reader never holds a database connection. Why: each writes
// to the client's socket, and a client that does not read (a full TCP
// window, an HTTP/2 stream with no flow-control credit) would otherwise
// keep the list's transaction, and its pool connection, for as long as
// it likes: a few such clients hold the whole pool, and every other
// request waits. When the queue stays full for pumpGrace, the pump ends
// its transaction and, once the reader has drained half the queue, reads
// on from the last key it queued, at the same resourceVersion, as a
// continue page would: the list is the same list, read in segments.
// A reader that keeps up never sees a segment.
const (
	// pumpBatchBytes is about how much of the bodies goes in one batch.
	pumpBatchBytes = 32 << 10
	// pumpQueueBytes bounds the bodies queued for the reader, besides the
	// batch being filled: what a list in flight holds in memory.
	pumpQueueBytes = 512 << 10
	// pumpGrace is how long the pump waits for room in the queue while it
	// holds its connection: long enough that a reader on a loaded machine
	// rarely costs a segment, short against how long a list may take.
	pumpGrace = 250 * time.Millisecond
)

// errPaused ends a segment whose reader did not keep up.
var errPaused = errors.New("list paused for its reader")

// pump is the reading side of one list.
type pump struct {
	ctx   context.Context
	queue chan listBatch
	// queuedBytes are the bodies in the queue; room gets a token when they
	// fall to half of pumpQueueBytes.
	queuedBytes atomic.Int64
	room        chan struct{}
	limit       int64 // the list's limit; 0: none
	batch       listBatch
	batchLen    int // the longest batch yet: the next one's capacity
	// queued counts the objects given to add, and last is the key of the
	// newest: where a paused list reads on.
	queued int64
	last   engine.ObjectKey
	// handed is set once a batch went to the reader.
	handed bool
}

// listBatch is objects handed to the reader at once, and their bodies' size.
type listBatch struct {
	objs  []engine.Object
	bytes int64
}

// pumpList runs read in a goroutine of its own, with a pump whose add
// read calls for each object, and calls each for every object, in order,
// in the caller's goroutine. It returns read's ListMeta, or the first
// error of each (which ends read) or of read. When transient (each keeps
// no body: engine.ListOptions.Transient), each body goes back to
// listBodies once each returns, for the rows read after it.
func pumpList(ctx context.Context, limit int64, transient bool, each func(engine.Object) error, read func(*pump) (engine.ListMeta, error)) (engine.ListMeta, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Batches hold pumpBatchBytes but the last, so the queue's bytes
	// bound its length.
	p := &pump{ctx: ctx, queue: make(chan listBatch, pumpQueueBytes/pumpBatchBytes+1), room: make(chan struct{}, 1), limit: limit,
		batchLen: 16}
	var meta engine.ListMeta
	var readErr error
	go func() {
		defer close(p.queue)
		meta, readErr = read(p)
		if readErr == nil {
			readErr = p.send()
		}
	}()
	var eachErr error
	for b := range p.queue {
		for _, obj := range b.objs {
			if eachErr == nil {
				eachErr = each(obj)
			}
			if transient {
				listBodies.put(obj.Body)
			}
		}
		if eachErr != nil {
			cancel() // ends read; the queue closes after its last send
			continue
		}
		if p.queuedBytes.Add(-b.bytes) <= pumpQueueBytes/2 {
			select {
			case p.room <- struct{}{}:
			default:
			}
		}
	}
	if eachErr != nil {
		return engine.ListMeta{}, eachErr
	}
	return meta, readErr
}

// add queues obj. It returns errPaused when the queue stayed full for
// pumpGrace: the caller ends its transaction, calls resume, and reads on
// from p.last.
func (p *pump) add(obj engine.Object) error {
	if p.batch.objs == nil {
		p.batch.objs = make([]engine.Object, 0, p.batchLen)
	}
	p.batch.objs = append(p.batch.objs, obj)
	p.batch.bytes += int64(len(obj.Body))
	p.queued, p.last = p.queued+1, obj.Key
	if p.batch.bytes < pumpBatchBytes || (p.limit > 0 && p.queued == p.limit) {
		// The object that fills a page is never paused on: what follows
		// it is only the page's continue token.
		return nil
	}
	if p.fits() {
		p.enqueue()
		return nil
	}
	t := time.NewTimer(pumpGrace)
	defer t.Stop()
	for {
		select {
		case <-p.room:
			if p.fits() {
				p.enqueue()
				return nil
			}
		case <-t.C:
			return errPaused
		case <-p.ctx.Done():
			return p.ctx.Err()
		}
	}
}

// fits reports whether the batch being filled may join the queue: the
// queue's bytes stay within pumpQueueBytes, or it is empty (a batch of
// one object larger than that).
func (p *pump) fits() bool {
	queued := p.queuedBytes.Load()
	return queued == 0 || queued+p.batch.bytes <= pumpQueueBytes
}

// enqueue queues the batch being filled; the queue has room for it (fits,
// and the queue's length).
func (p *pump) enqueue() {
	p.queuedBytes.Add(p.batch.bytes)
	p.handed = true
	p.queue <- p.batch
	p.batchLen = max(p.batchLen, len(p.batch.objs))
	p.batch = listBatch{}
}

// discard drops the objects read that the reader was not handed, and
// reports whether it was handed none: then the list may be read again,
// from its start, elsewhere (a replica that failed mid-list: the primary).
func (p *pump) discard() bool {
	if p.handed {
		return false
	}
	p.batch, p.queued, p.last = listBatch{}, 0, engine.ObjectKey{}
	return true
}

// send queues the batch being filled, waiting as long as it takes: the
// caller holds no connection.
func (p *pump) send() error {
	for len(p.batch.objs) > 0 && !p.fits() {
		select {
		case <-p.room:
		case <-p.ctx.Done():
			return p.ctx.Err()
		}
	}
	if len(p.batch.objs) > 0 {
		p.enqueue()
	}
	return nil
}

// resume waits, holding no connection, until the reader has drained half
// the queue, and returns the state and options that read on from the last
// key queued, in the list's state at rv, with what is left of its limit.
// opts and st are the list's as asked, not a segment's.
func (p *pump) resume(opts engine.ListOptions, st listState, rv int64) (engine.ListOptions, listState, error) {
	if err := p.send(); err != nil {
		return opts, st, err
	}
	for p.queuedBytes.Load() > pumpQueueBytes/2 {
		select {
		case <-p.room:
		case <-p.ctx.Done():
			return opts, st, p.ctx.Err()
		}
	}
	t := continueToken{RV: rv, Namespace: p.last.Namespace, Name: p.last.Name, Resource: resourceColumn(p.last.Resource)}
	if st.after != nil && st.after.Left != nil {
		left := *st.after.Left - p.queued
		t.Left = &left
	}
	opts.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = t.encode(), "", ""
	if p.limit > 0 {
		opts.Limit = p.limit - p.queued
	}
	return opts, listState{rv: rv, after: &t}, nil
}
