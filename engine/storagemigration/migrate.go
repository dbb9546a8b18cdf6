// Package storagemigration rewrites the stored objects of a kind into its
// current storage version, as Kubernetes' storage version migrator does
// (storagemigration.k8s.io): what `dynapi migrate` runs for every kind it
// serves. It holds nothing per object: it reads a page at a time and
// writes each object that needs it back with a resourceVersion
// precondition, so that it is safe beside running servers and can be
// stopped and run again. The conversion is resource's
// (resource.ToStorageVersion); the write goes to the Store as the object
// is, since nothing about it changes but its stored form.
package storagemigration

import (
	"context"
	"maps"
	"slices"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// Store is what a migration reads and writes; engine.Store is one.
type Store interface {
	// List calls each for every object matching opts, a page of
	// opts.Limit at a time. Errors: those of engine.Store.List.
	List(ctx context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error)
	// Update replaces an object if its resourceVersion is still
	// obj.ResourceVersion. Errors: NotFound, Conflict.
	Update(ctx context.Context, obj engine.Object) (engine.Object, error)
}

var _ Store = engine.Store(nil)

// Report says what Run found and did for one resource.
type Report struct {
	Resource engine.GroupResource
	// Before counts the objects stored in each version before the run.
	Before map[string]int
	// Rewritten objects are now stored in the storage version; Skipped ones
	// changed or went away during the run (a write stores the storage
	// version anyway).
	Rewritten, Skipped int
}

// StoredVersions are the versions objects were stored in before the run,
// sorted: what a CustomResourceDefinition's status.storedVersions tracks.
func (r Report) StoredVersions() []string {
	return slices.Sorted(maps.Keys(r.Before))
}

// Run rewrites every object of res that is stored in an older version
// into the current storage version, or that the store read through an
// encryption key or provider other than the one writes use (Stale: the
// rewrite re-encrypts it), a page of batch objects at a time, each
// with a resourceVersion precondition so that a concurrent write is never
// overwritten. It can be stopped and run again: it only touches objects not
// yet in the storage version. Errors: those of the Store, and of
// resource.ToStorageVersion.
func Run(ctx context.Context, store Store, res *registry.Resource, batch int64) (Report, error) {
	report := Report{Resource: res.GroupResource(), Before: map[string]int{}}
	opts := engine.ListOptions{Resource: res.GroupResource(), Limit: batch}
	for {
		var stale []engine.Object
		meta, err := store.List(ctx, opts, func(o engine.Object) error {
			report.Before[o.StoredVersion]++
			if o.StoredVersion != res.StorageVersion || o.Stale {
				stale = append(stale, o)
			}
			return nil
		})
		if err != nil {
			return report, err
		}
		for _, o := range stale {
			if err := rewrite(ctx, store, res, o); err != nil {
				code := engine.ErrorCode(err)
				if code != engine.CodeConflict && code != engine.CodeNotFound {
					return report, err
				}
				report.Skipped++
				continue
			}
			report.Rewritten++
		}
		if meta.Continue == "" {
			return report, nil
		}
		opts.Continue = meta.Continue
	}
}

// rewrite writes one object again in the storage version.
func rewrite(ctx context.Context, store Store, res *registry.Resource, o engine.Object) error {
	stored, err := resource.ToStorageVersion(res, o)
	if err != nil {
		return err
	}
	_, err = store.Update(ctx, stored)
	return err
}
