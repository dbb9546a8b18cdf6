package resource

import (
	"context"

	"github.com/dynapi/dynapi/engine"
)

// Get returns one object in the target's version. Errors: NotFound.
func (s *Service) Get(ctx context.Context, t Target, name string) ([]byte, error) {
	o, err := s.Store.Get(ctx, t.key(name))
	if err != nil {
		return nil, err
	}
	return fromStorage(t, o)
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
	return s.Store.List(ctx, opts, func(o engine.Object) error {
		out, err := fromStorage(t, o)
		if err != nil || !f.matchSelectable(out) {
			return err
		}
		return each(out)
	})
}
