package namespace

import (
	"context"

	"github.com/dynapi/dynapi/engine/registry"
)

// Look makes the Finalizer's look over snap, once, for tests.
func (s *Finalizer) Look(ctx context.Context, snap *registry.Snapshot) error {
	return s.finalizeNamespaces(ctx, snap)
}

// SetPage sets how many objects the Finalizer lists, then deletes, at a time.
func (s *Finalizer) SetPage(n int) { s.page = n }
