package controlplane

import (
	"context"
	"log/slog"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// FieldIndexer makes the storage's indexes of selectable fields; the
// postgres Store is one.
type FieldIndexer interface {
	// EnsureFieldIndexes makes, for each dotted body path in paths
	// ("spec.color"), an index of the field over resource's objects,
	// unless it exists; it may take as long as the builds.
	EnsureFieldIndexes(ctx context.Context, resource engine.GroupResource, paths []string) error
}

// fieldIndexer makes the expression indexes of the storage versions'
// selectable fields, in the background, for the newest snapshot swapped
// in: index builds never hold up a reload or a request.
type fieldIndexer struct {
	store  FieldIndexer
	logger *slog.Logger
	next   chan *registry.Snapshot // the newest snapshot not handled yet, if any
	made   map[string]bool         // "resource\x00path" of the indexes made; owned by run
}

// newFieldIndexer returns an indexer that run makes the indexes of.
func newFieldIndexer(store FieldIndexer, logger *slog.Logger) *fieldIndexer {
	return &fieldIndexer{store: store, logger: logger, next: make(chan *registry.Snapshot, 1), made: map[string]bool{}}
}

// swapped hands snap to the indexer without blocking, replacing a
// snapshot it has not started on: only the newest one matters.
func (x *fieldIndexer) swapped(snap *registry.Snapshot) {
	for {
		select {
		case x.next <- snap:
			return
		default:
			select {
			case <-x.next:
			default:
			}
		}
	}
}

// run makes the indexes of the snapshots handed over, until ctx ends.
func (x *fieldIndexer) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case snap := <-x.next:
			x.index(ctx, snap)
		}
	}
}

// index makes the indexes of snap's resources not made yet; failures are
// logged and tried again at the next swap.
func (x *fieldIndexer) index(ctx context.Context, snap *registry.Snapshot) {
	for _, r := range snap.Resources() {
		paths := x.missing(r)
		if len(paths) == 0 {
			continue
		}
		if err := x.store.EnsureFieldIndexes(ctx, r.GroupResource(), paths); err != nil {
			if ctx.Err() == nil {
				x.logger.Warn("selectable field indexes", "resource", r.GroupResource().String(), "err", err)
			}
			continue
		}
		for _, p := range paths {
			x.made[r.GroupResource().String()+"\x00"+p] = true
		}
	}
}

// missing returns the body paths of r's storage version's selectable
// fields ("spec.color") whose indexes were not made yet.
func (x *fieldIndexer) missing(r *registry.Resource) []string {
	v, ok := r.Version(r.StorageVersion)
	if !ok {
		return nil
	}
	var paths []string
	for _, f := range v.SelectableFields {
		p := strings.TrimPrefix(f, ".")
		if !x.made[r.GroupResource().String()+"\x00"+p] {
			paths = append(paths, p)
		}
	}
	return paths
}
