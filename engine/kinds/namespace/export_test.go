package namespace

import (
	"context"

	"github.com/dynapi/dynapi/engine/registry"
)

// Look makes the Finalizer's look over snap, once, for tests.
func (s *Finalizer) Look(ctx context.Context, snap *registry.Snapshot) error {
	return s.finalizeNamespaces(ctx, snap)
}
