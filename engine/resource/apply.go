package resource

import (
	"context"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/apply"
)

// ApplyPatch is server-side apply's patch type. Its CBOR form,
// application/apply-patch+cbor, is not accepted (415).
const ApplyPatch = "application/apply-patch+yaml"

// applyOnce merges an apply patch (JSON, converted from YAML by the HTTP
// layer) into the stored object, or creates it from the patch when there
// is none (not through a subresource), then writes it through the
// pipeline. Errors: as Patch, and Conflict naming the managers of the
// fields the patch would take without opts.Force.
func (s *Service) applyOnce(ctx context.Context, t Target, name string, patch []byte, opts WriteOptions, st stored) (Result, error) {
	lines := opts.YAMLDuplicates
	opts.YAMLDuplicates = nil // reported here, after the merge, as kube's applyPatcher does
	w, err := s.loadFrom(ctx, t, name, opts, st)
	if engine.ErrorCode(err) == engine.CodeNotFound && t.Subresource == "" {
		return s.applyCreate(ctx, t, name, patch, opts, lines)
	}
	if err != nil {
		return Result{}, err
	}
	if err := checkApplyName(t, name, patch); err != nil {
		return Result{}, err
	}
	live, err := apply.WithManagedFields(w.Old, w.oldManaged)
	if err != nil {
		return Result{}, err
	}
	merged, err := t.Resource.Fields.Apply(t.Version.Name, t.Subresource, live, patch, opts.FieldManager, opts.Force)
	if err != nil {
		return Result{}, err
	}
	if w.Warnings, err = applyDuplicates(lines, opts.FieldValidation); err != nil {
		return Result{}, err
	}
	w.Object, w.patched, w.applied = merged, true, true
	w.managedFields.managed = apply.ManagedFieldsOf(merged)
	res, err := s.run(ctx, w)
	return Result{Object: res.object, Warnings: w.Warnings}, err
}

// applyCreate creates the object an apply patch names, as kube-apiserver
// does for an apply to an object that does not exist: the patch applied to
// an empty object. A concurrent create answers Conflict, so that Patch
// tries again as an update.
func (s *Service) applyCreate(ctx context.Context, t Target, name string, patch []byte, opts WriteOptions, lines []string) (Result, error) {
	if err := checkApplyName(t, name, patch); err != nil {
		return Result{}, err
	}
	obj, err := t.Resource.Fields.Apply(t.Version.Name, "", nil, patch, opts.FieldManager, opts.Force)
	if err != nil {
		return Result{}, err
	}
	warnings, err := applyDuplicates(lines, opts.FieldValidation)
	if err != nil {
		return Result{}, err
	}
	w := &Write{Target: t, Operation: CreateOperation, Object: obj, Options: opts, Warnings: warnings,
		patched: true, applied: true, managedFields: managedFieldsFacts{managed: apply.ManagedFieldsOf(obj)}}
	res, err := s.run(ctx, w)
	if engine.ErrorCode(err) == engine.CodeAlreadyExists {
		return Result{}, engine.NewModified(t.GroupResource(), name)
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

// applyDuplicates reports the duplicate keys of an apply patch as
// kube-apiserver's applyPatcher does once the merge succeeded: a warning
// each, nothing under Ignore, a 400 under Strict. Unknown fields need no
// report: the merge refuses them whatever the directive (".spec.x: field
// not declared in schema"). Errors: BadRequest.
func applyDuplicates(lines []string, directive string) ([]string, error) {
	switch {
	case len(lines) == 0 || directive == FieldValidationIgnore:
		return nil, nil
	case directive == FieldValidationStrict:
		return nil, engine.Errorf(engine.CodeBadRequest, "error strict decoding patch: error converting YAML to JSON: %s", yamlErrors(lines))
	}
	return lines, nil
}
