// Package storagemigration rewrites the stored objects of a kind into its
// current storage version, as Kubernetes' storage version migrator does
// (storagemigration.k8s.io): what a StorageVersionMigration runs
// (engine/kinds/storageversionmigration) and what `dynapi migrate` runs
// for every kind it serves. It holds nothing per object: it reads a page
// at a time and writes each object that needs it back with kube's no-op
// merge patch, carrying the resourceVersion it read, so that it is safe
// beside running servers and can be stopped and run again.
//
// The write goes through the pipeline (resource.Service.Patch), as
// kube's migrator writes through the API: the object is converted from
// what is stored to the hub and to the storage version by whatever
// converts the kind (rules from files or through the API, a conversion
// webhook), admitted and stored as any client's write is. A no-op update
// rewrites a row only when it is not stored as a write would store it now
// (another version, another encryption key), as kube-apiserver's does.
package storagemigration

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// FieldManager is the manager of the migration's writes: kube's
// migrator's controller name.
const FieldManager = "storage-version-migrator-controller"

// Service is what a migration needs of the pipeline; *resource.Service
// is one.
type Service interface {
	// ListStored streams stored objects as stored (resource.Service's).
	ListStored(ctx context.Context, opts engine.ListOptions, each func(engine.Object) error) (engine.ListMeta, error)
	// Patch writes a patch through the update pipeline (resource.Service's).
	Patch(ctx context.Context, t resource.Target, name, patchType string, body []byte, opts resource.WriteOptions) (resource.Result, error)
}

var _ Service = (*resource.Service)(nil)

// Options say how Run goes.
type Options struct {
	// Batch is how many objects a page holds (0: 500).
	Batch int64
	// UpTo, when set, limits the run to the objects last written at or
	// before this resourceVersion, as kube's migrator does with its
	// status.resourceVersion: a later write stored the storage version.
	UpTo int64
	// Progress, when set, is called after each page with the report so
	// far; an error it returns ends the run with that error.
	Progress func(Report) error
}

// Report says what Run found and did for one resource.
type Report struct {
	Resource engine.GroupResource
	// Total is the number of objects the resource held when the run
	// began; Seen how many of them the run has looked at.
	Total, Seen int
	// Before counts the objects looked at by the version they were
	// stored in.
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

// Pending is how many objects the run has still to look at.
func (r Report) Pending() int { return max(r.Total-r.Seen, 0) }

// Run rewrites every object of res that is stored in an older version
// into the current storage version, or that the store read through an
// encryption key or provider other than the one writes use (Stale: the
// rewrite re-encrypts it), a page at a time. It only touches objects not
// yet as a write would store them, so it can be stopped and run again.
// An object written or deleted meanwhile is skipped: that write stored
// the storage version. Errors: those of listing, and of the first write
// that fails otherwise (a conversion that fails, a webhook that is down),
// with the report so far.
func Run(ctx context.Context, svc Service, res *registry.Resource, opts Options) (Report, error) {
	r := &run{svc: svc, res: res, opts: opts, report: Report{Resource: res.GroupResource(), Before: map[string]int{}}}
	if r.opts.Batch <= 0 {
		r.opts.Batch = 500
	}
	list := engine.ListOptions{Resource: res.GroupResource(), Limit: r.opts.Batch}
	for first := true; ; first = false {
		stale, meta, err := r.page(ctx, list)
		if err != nil {
			return r.report, err
		}
		if first {
			// The first page's count and what it says follows it: every
			// object of the resource at the list's state.
			r.report.Total = r.report.Seen
			if meta.RemainingItemCount != nil {
				r.report.Total += int(*meta.RemainingItemCount)
			}
		}
		if err := r.rewriteAll(ctx, stale); err != nil {
			return r.report, err
		}
		if r.opts.Progress != nil {
			if err := r.opts.Progress(r.report); err != nil {
				return r.report, err
			}
		}
		if meta.Continue == "" {
			return r.report, nil
		}
		list.Continue = meta.Continue
	}
}

// run is one Run.
type run struct {
	svc    Service
	res    *registry.Resource
	opts   Options
	report Report
}

// page lists one page, counting its objects in the report, and returns
// those that need a rewrite.
func (r *run) page(ctx context.Context, list engine.ListOptions) ([]engine.Object, engine.ListMeta, error) {
	var stale []engine.Object
	meta, err := r.svc.ListStored(ctx, list, func(o engine.Object) error {
		r.report.Seen++
		r.report.Before[o.StoredVersion]++
		if r.opts.UpTo > 0 && o.ResourceVersion > r.opts.UpTo {
			return nil
		}
		if o.StoredVersion != r.res.StorageVersion || o.Stale {
			stale = append(stale, engine.Object{Key: o.Key, ResourceVersion: o.ResourceVersion})
		}
		return nil
	})
	return stale, meta, err
}

// rewriteAll rewrites the objects of a page.
func (r *run) rewriteAll(ctx context.Context, objs []engine.Object) error {
	for _, o := range objs {
		err := r.rewrite(ctx, o)
		switch engine.ErrorCode(err) {
		case "":
			r.report.Rewritten++
		case engine.CodeConflict, engine.CodeNotFound:
			r.report.Skipped++
		default:
			return fmt.Errorf("rewrite %s: %w", o.Key, err)
		}
	}
	return nil
}

// rewrite writes one object again, in the storage version, with kube's
// no-op merge patch: its apiVersion, kind and the resourceVersion it was
// read at, a precondition.
func (r *run) rewrite(ctx context.Context, o engine.Object) error {
	v, ok := r.res.Version(r.res.StorageVersion)
	if !ok {
		return fmt.Errorf("no storage version %q", r.res.StorageVersion)
	}
	t := resource.Target{Resource: r.res, Version: v, Namespace: o.Key.Namespace}
	patch := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"resourceVersion":%q}}`,
		t.APIVersion(), r.res.Kind, strconv.FormatInt(o.ResourceVersion, 10))
	_, err := r.svc.Patch(ctx, t, o.Key.Name, resource.MergePatch, []byte(patch), resource.WriteOptions{FieldManager: FieldManager})
	return err
}
