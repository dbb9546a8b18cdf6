package resource

import (
	"bytes"
	"context"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// WebhookConverter converts objects by their definition's conversion
// webhook (conversionwebhook.Converter): objs (each in the version its
// apiVersion names) into version to, by one call for all of them. list
// says whether they are the items of a list or a batch of watch events.
// Its errors are the answer to the client.
type WebhookConverter interface {
	Convert(ctx context.Context, r *registry.Resource, objs [][]byte, to string, list bool) ([][]byte, error)
}

// converter converts one request's objects between the versions of their
// kind: by its rules, or by its webhook.
type converter struct {
	ctx      context.Context
	webhooks WebhookConverter // nil: registry.ErrWebhookNotCalled
}

// converter is the converter of a request with ctx.
func (s *Service) converter(ctx context.Context) converter {
	return converter{ctx: ctx, webhooks: s.ConversionWebhooks}
}

// convert converts obj, an object of r in version from, into version to.
func (c converter) convert(r *registry.Resource, obj []byte, from, to string) ([]byte, error) {
	if from == to || !r.ConvertsByWebhook() {
		return r.Conversion.Convert(obj, from, to)
	}
	out, err := c.batch(r, [][]byte{obj}, to, false)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// batch converts objs of r, a kind converted by its webhook, into version
// to with one call, each pruned to what that version holds, as kube
// prunes what a webhook answers.
func (c converter) batch(r *registry.Resource, objs [][]byte, to string, list bool) ([][]byte, error) {
	if c.webhooks == nil {
		return nil, registry.ErrWebhookNotCalled
	}
	out, err := c.webhooks.Convert(c.ctx, r, objs, to, list)
	if err != nil {
		return nil, err
	}
	v, ok := r.Version(to)
	if !ok || v.Schema == nil {
		return out, nil
	}
	for i := range out {
		out[i], _ = v.Schema.Prune(out[i])
	}
	return out, nil
}

// fromStorageBatch converts stored objects into the target's version: with
// one call to the webhook of a kind converted by one, else one at a time.
func fromStorageBatch(c converter, t Target, objs []engine.Object) ([][]byte, error) {
	out := make([][]byte, len(objs))
	r := t.Resource
	if !r.ConvertsByWebhook() {
		for i, o := range objs {
			var err error
			if out[i], err = fromStorage(c, t, o); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for i, o := range objs {
		out[i], _ = storedDefaults(r, o)
	}
	return c.batch(r, out, t.Version.Name, true)
}

// listBatch is how many objects of a list without a limit go to a
// conversion webhook in one call. kube converts a whole list at once;
// dynapi streams lists, and keeps a bounded batch in memory instead.
const listBatch = 500

// batcher gathers the stored objects of a list page to convert them
// together, and hands each on converted.
type batcher struct {
	convert func([]engine.Object) ([][]byte, error)
	each    func([]byte) error
	size    int
	objs    []engine.Object
}

// newBatcher batches by the list's limit, one call a page, else by
// listBatch.
func newBatcher(limit int64, convert func([]engine.Object) ([][]byte, error), each func([]byte) error) *batcher {
	size := listBatch
	if limit > 0 {
		size = int(limit)
	}
	return &batcher{convert: convert, each: each, size: size}
}

// add keeps a copy of o (the store may reuse its buffers) and converts the
// batch once full.
func (b *batcher) add(o engine.Object) error {
	o.Body, o.Remainder = bytes.Clone(o.Body), bytes.Clone(o.Remainder)
	b.objs = append(b.objs, o)
	if len(b.objs) < b.size {
		return nil
	}
	return b.flush()
}

// flush converts what is gathered and hands it on.
func (b *batcher) flush() error {
	if len(b.objs) == 0 {
		return nil
	}
	out, err := b.convert(b.objs)
	b.objs = b.objs[:0]
	if err != nil {
		return err
	}
	for _, obj := range out {
		if err := b.each(obj); err != nil {
			return err
		}
	}
	return nil
}
