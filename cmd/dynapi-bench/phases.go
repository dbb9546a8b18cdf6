package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tidwall/gjson"
)

// create POSTs every object; the baseline INSERTs the same bodies.
func (b *bench) create(ctx context.Context) {
	n, c, w := b.cfg.Objects, b.cfg.Clients, b.widgets
	fmt.Fprintf(b.progress, "create: %d objects with %d clients\n", n, c)
	b.rvs = make([]string, n)
	create := timed(func(ctx context.Context, i int) error {
		out, err := b.load().do(ctx, http.MethodPost, w.collection(), "application/json", w.body(i, 0, ""), http.StatusCreated)
		b.rvs[i] = gjson.GetBytes(out, "metadata.resourceVersion").String()
		return err
	})
	var m measurement
	if b.cfg.Batch > 0 {
		m = b.createBatches(ctx, create)
	} else {
		m = b.measure(ctx, c, n, create)
	}
	raw := b.baseline(ctx, c, n, timed(func(ctx context.Context, i int) error {
		return b.raw.Insert(ctx, w.name(i), w.body(i, 0, ""))
	}))
	b.add("create", c, m, raw)
}

// get GETs every object; the baseline SELECTs each by its key.
func (b *bench) get(ctx context.Context) {
	n, c, w := b.cfg.Objects, b.cfg.Clients, b.widgets
	fmt.Fprintf(b.progress, "get: %d objects with %d clients\n", n, c)
	m := b.measure(ctx, c, n, timed(func(ctx context.Context, i int) error {
		_, err := b.load().get(ctx, w.path(i))
		return err
	}))
	raw := b.baseline(ctx, c, n, timed(func(ctx context.Context, i int) error {
		_, err := b.raw.Get(ctx, w.name(i))
		return err
	}))
	b.add("get", c, m, raw)
}

// update PUTs every object with the resourceVersion of its last write, as
// a client that holds the object does (one request, as Kubernetes' figure
// measures); the baseline UPDATEs the same bodies.
func (b *bench) update(ctx context.Context) {
	w := b.widgets
	fmt.Fprintf(b.progress, "update: %d objects with %d clients (PUT)\n", b.cfg.Objects, b.cfg.Clients)
	b.rewrite(ctx, "update (PUT)", http.MethodPut, "application/json", 1, func(i int) []byte { return w.body(i, 1, b.rvs[i]) })
}

// patch merge-patches every object's spec.size, as kubectl patch and
// controllers change one field, with no resourceVersion (the server reads
// the object and retries on a conflict); the baseline UPDATEs the same
// rows with the bodies the patches make.
func (b *bench) patch(ctx context.Context) {
	fmt.Fprintf(b.progress, "patch: %d objects with %d clients (merge patch)\n", b.cfg.Objects, b.cfg.Clients)
	patch := fmt.Appendf(nil, `{"spec":{"size":%d}}`, gjson.GetBytes(b.widgets.body(0, 2, ""), "spec.size").Int())
	b.rewrite(ctx, "merge patch", http.MethodPatch, "application/merge-patch+json", 2, func(int) []byte { return patch })
}

// rewrite sends every object body(i) with method, keeping the
// resourceVersion of the answer; the baseline UPDATEs the same rows with
// the bodies of that revision.
func (b *bench) rewrite(ctx context.Context, phase, method, contentType string, revision int, body func(i int) []byte) {
	n, c, w := b.cfg.Objects, b.cfg.Clients, b.widgets
	m := b.measure(ctx, c, n, timed(func(ctx context.Context, i int) error {
		out, err := b.load().do(ctx, method, w.path(i), contentType, body(i), http.StatusOK)
		if err != nil {
			return err
		}
		b.rvs[i] = gjson.GetBytes(out, "metadata.resourceVersion").String()
		return nil
	}))
	raw := b.baseline(ctx, c, n, timed(func(ctx context.Context, i int) error {
		return b.raw.Update(ctx, w.name(i), w.body(i, revision, ""))
	}))
	b.add(phase, c, m, raw)
}

// delete DELETEs every object; the baseline DELETEs the same rows.
func (b *bench) delete(ctx context.Context) {
	n, c, w := b.cfg.Objects, b.cfg.Clients, b.widgets
	fmt.Fprintf(b.progress, "delete: %d objects with %d clients\n", n, c)
	m := b.measure(ctx, c, n, timed(func(ctx context.Context, i int) error {
		_, err := b.load().do(ctx, http.MethodDelete, w.path(i), "", nil, http.StatusOK)
		return err
	}))
	raw := b.baseline(ctx, c, n, timed(func(ctx context.Context, i int) error {
		return b.raw.Delete(ctx, w.name(i))
	}))
	b.add("delete", c, m, raw)
}
