package resource

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
)

// MigrateReport says what Migrate found and did for one resource.
type MigrateReport struct {
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
func (r MigrateReport) StoredVersions() []string {
	return slices.Sorted(maps.Keys(r.Before))
}

// Migrate rewrites every object of res that is stored in an older version
// into the current storage version, or that the store read through an
// encryption key or provider other than the one writes use (Stale: the
// rewrite re-encrypts it), a page of batch objects at a time, each
// with a resourceVersion precondition so that a concurrent write is never
// overwritten. It can be stopped and run again: it only touches objects not
// yet in the storage version. Errors: those of the Store.
func (s *Service) Migrate(ctx context.Context, res *registry.Resource, batch int64) (MigrateReport, error) {
	report := MigrateReport{Resource: res.GroupResource(), Before: map[string]int{}}
	opts := engine.ListOptions{Resource: res.GroupResource(), Limit: batch}
	for {
		var stale []engine.Object
		meta, err := s.storage.List(ctx, opts, func(o engine.Object) error {
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
			if err := s.restore(ctx, res, o); err != nil {
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

// restore writes one object again in the storage version.
func (s *Service) restore(ctx context.Context, res *registry.Resource, o engine.Object) error {
	storage, ok := res.Version(res.StorageVersion)
	if !ok {
		return fmt.Errorf("%s has no storage version %s", res.GroupResource(), res.StorageVersion)
	}
	t := Target{Resource: res, Version: storage, Namespace: o.Key.Namespace}
	h, _, err := storedToHub(res, o.StoredVersion, o.Body, o.Remainder)
	if err != nil {
		return err
	}
	obj, err := hubIn(res, h, storage)
	if err != nil {
		return err
	}
	stored, err := toStorage(t, o.Key.Name, obj, o.ResourceVersion, h)
	if err != nil {
		return err
	}
	_, err = s.storage.Update(ctx, stored)
	return err
}
