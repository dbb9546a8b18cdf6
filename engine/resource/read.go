package resource

import (
	"context"

	"github.com/dynapi/dynapi/engine"
)

// Get returns one object in the target's version. Errors: NotFound.
func (s *Service) Get(ctx context.Context, t Target, name string) ([]byte, error) {
	o, err := s.storage.Get(ctx, t.key(name))
	if err != nil {
		return nil, err
	}
	return fromStorage(s.converter(ctx), t, o)
}

// List streams the objects opts selects, each in the target's version, to
// each, and returns the list metadata. opts.Resource and opts.Namespace are
// taken from the target. Errors: those of engine.Store.List.
func (s *Service) List(ctx context.Context, t Target, opts engine.ListOptions, each func([]byte) error) (engine.ListMeta, error) {
	f, err := newFilter(t, opts)
	if err != nil {
		return engine.ListMeta{}, err
	}
	opts = f.storeOptions(opts)
	opts.Resource, opts.Namespace = t.GroupResource(), t.Namespace
	c := s.converter(ctx)
	matching := func(out []byte) error {
		if !f.matchSelectable(out) {
			return nil
		}
		return each(out)
	}
	if !t.Resource.ConvertsByWebhook() {
		return s.storage.List(ctx, opts, func(o engine.Object) error {
			out, err := fromStorage(c, t, o)
			if err != nil {
				return err
			}
			return matching(out)
		})
	}
	// One call to the webhook per page (or per listBatch objects).
	b := newBatcher(opts.Limit, func(objs []engine.Object) ([][]byte, error) { return fromStorageBatch(c, t, objs) }, matching)
	meta, err := s.storage.List(ctx, opts, b.add)
	if err != nil {
		return meta, err
	}
	return meta, b.flush()
}

// ListMetadata is List for a metadata-only list (PartialObjectMetadataList):
// each gets the metadata of an object (JSON of its ObjectMeta) in the
// target's version. When no conversion rule of the kind touches metadata
// and no selectable field needs the whole object, only metadata leaves the
// store (engine.ListOptions.MetadataOnly) and nothing is converted: an
// object's metadata is the same in every version. Errors: those of List.
func (s *Service) ListMetadata(ctx context.Context, t Target, opts engine.ListOptions, each func([]byte) error) (engine.ListMeta, error) {
	f, err := newFilter(t, opts)
	if err != nil {
		return engine.ListMeta{}, err
	}
	if f.selectable || t.Resource.Conversion.ConvertsMetadata() {
		return s.List(ctx, t, opts, func(obj []byte) error { return each(MetadataOf(obj)) })
	}
	opts = f.storeOptions(opts)
	opts.Resource, opts.Namespace, opts.MetadataOnly = t.GroupResource(), t.Namespace, true
	return s.storage.List(ctx, opts, func(o engine.Object) error { return each(o.Body) })
}

// MetadataOf is obj's metadata as JSON, sliced out of obj without a
// copy; {} when absent.
func MetadataOf(obj []byte) []byte {
	m := lookup(obj, "metadata")
	if !m.IsObject() {
		return []byte("{}")
	}
	if m.Index > 0 {
		return obj[m.Index : m.Index+len(m.Raw)]
	}
	return []byte(m.Raw)
}
