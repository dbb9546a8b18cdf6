package resource

import (
	"context"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
)

// ApplyPatch is server-side apply's patch type. Its CBOR form,
// application/apply-patch+cbor, is not accepted (415).
const ApplyPatch = "application/apply-patch+yaml"

// applyOnce merges an apply patch (JSON, converted from YAML by the HTTP
// layer) into the stored object, or creates it from the patch when there
// is none (not through a subresource), then writes it through the
// pipeline. Errors: as Patch, and Conflict naming the managers of the
// fields the patch would take without opts.Force.
func (s *Service) applyOnce(ctx context.Context, t Target, name string, patch []byte, opts WriteOptions) (Result, error) {
	patch, warnings, err := s.prunePatch(t, patch, opts)
	if err != nil {
		return Result{}, err
	}
	w, err := s.loadForUpdate(ctx, t, name, opts)
	if engine.ErrorCode(err) == engine.CodeNotFound && t.Subresource == "" {
		return s.applyCreate(ctx, t, name, patch, opts, warnings)
	}
	if err != nil {
		return Result{}, err
	}
	w.Warnings = warnings
	if err := checkApplyName(t, name, patch); err != nil {
		return Result{}, err
	}
	merged, err := t.Resource.Fields.Apply(t.Version.Name, t.Subresource, w.Old, patch, opts.FieldManager, opts.Force)
	if err != nil {
		return Result{}, err
	}
	w.Object, w.patched, w.applied = merged, true, true
	w.managed = sentManagedFields(merged)
	res, err := s.run(ctx, w)
	return Result{Object: res.object, Warnings: w.Warnings}, err
}

// applyCreate creates the object an apply patch names, as kube-apiserver
// does for an apply to an object that does not exist: the patch applied to
// an empty object. A concurrent create answers Conflict, so that Patch
// tries again as an update.
func (s *Service) applyCreate(ctx context.Context, t Target, name string, patch []byte, opts WriteOptions, warnings []string) (Result, error) {
	if err := checkApplyName(t, name, patch); err != nil {
		return Result{}, err
	}
	obj, err := t.Resource.Fields.Apply(t.Version.Name, "", nil, patch, opts.FieldManager, opts.Force)
	if err != nil {
		return Result{}, err
	}
	w := &Write{Target: t, Operation: CreateOperation, Object: obj, Options: opts, Warnings: warnings,
		patched: true, applied: true, managed: sentManagedFields(obj)}
	res, err := s.run(ctx, w)
	if engine.ErrorCode(err) == engine.CodeAlreadyExists {
		return Result{}, engine.NewConflict(t.GroupResource(), name, conflictReason)
	}
	return Result{Object: res.object, Warnings: w.Warnings, Created: err == nil}, err
}

// checkApplyName requires the patch to name the object of the URL, in the
// URL's namespace. Errors: BadRequest.
func checkApplyName(t Target, name string, patch []byte) error {
	m := gjson.GetBytes(patch, "metadata")
	if n := m.Get("name").Str; n != name {
		return engine.Errorf(engine.CodeBadRequest, "the name of the object (%s) does not match the name on the URL (%s)", n, name)
	}
	if ns := m.Get("namespace"); ns.Exists() && ns.Str != t.Namespace {
		return engine.Errorf(engine.CodeBadRequest, "the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// prunePatch drops from an apply patch the fields its version's schema
// does not know, reporting them as fieldValidation asks, as
// kube-apiserver's decoder does before the merge. Errors: BadRequest.
func (s *Service) prunePatch(t Target, patch []byte, opts WriteOptions) ([]byte, []string, error) {
	if t.Version.Schema == nil {
		return patch, nil, nil
	}
	patch, warnings, err := duplicateFields(t, patch, opts.FieldValidation)
	if err != nil {
		return nil, nil, err
	}
	pruned, removed := t.Version.Schema.Prune(patch)
	more, err := decodingProblems(t, "unknown", removed, opts.FieldValidation)
	return pruned, append(warnings, more...), err
}
