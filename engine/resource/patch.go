package resource

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/apply"
	"github.com/dynapi/dynapi/engine/patch"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/schema"
)

// Patch types. JSON and merge patches apply to every kind. A strategic
// merge patch needs its lists' merge keys, which the schema declares (see
// acceptsStrategicMerge): the built-in kinds take it, as in
// kube-apiserver, which refuses it for custom resources.
const (
	MergePatch          = "application/merge-patch+json"
	JSONPatch           = "application/json-patch+json"
	StrategicMergePatch = "application/strategic-merge-patch+json"
)

// MaxObjectBytes bounds the work of one patch, as kube-apiserver bounds
// it with its request body limit: a JSON patch's copy operations add at
// most MaxObjectBytes in all (and it has at most patch.MaxJSONOperations
// operations), and the object after any patch is no larger.
const MaxObjectBytes = 3 << 20

// PatchTypes are the patch types t accepts, as the 415 of another lists
// them.
func PatchTypes(t Target) []string {
	types := []string{JSONPatch, MergePatch}
	if acceptsStrategicMerge(t) {
		types = append(types, StrategicMergePatch)
	}
	if t.Resource.Fields != nil {
		types = append(types, ApplyPatch)
	}
	return types
}

// Patch applies a merge patch or JSON patch to the object name (or to the
// subresource t names) and writes the result through the update pipeline.
// Without a resourceVersion in the patch, a concurrent write makes it
// re-read and re-apply, as kube-apiserver does.
// Errors: UnsupportedMediaType, BadRequest, Invalid, NotFound, Conflict.
func (s *Service) Patch(ctx context.Context, t Target, name, patchType string, body []byte, opts WriteOptions) (Result, error) {
	for attempt := 0; ; attempt++ {
		res, err := s.patchOnce(ctx, t, name, patchType, body, opts, attempt == 0)
		// An apply conflict between managers (it has causes) stays one.
		var e *engine.Error
		if engine.ErrorCode(err) != engine.CodeConflict || attempt >= maxConflictRetries || errors.As(err, &e) && len(e.Causes) > 0 {
			return res, err
		}
	}
}

// patchOnce applies the patch once: over the cached object on the first
// try (useCache; see guarded), over the database's after a conflict.
func (s *Service) patchOnce(ctx context.Context, t Target, name, patchType string, body []byte, opts WriteOptions, useCache bool) (Result, error) {
	if err := s.checkSubresource(t, name); err != nil {
		return Result{}, err
	}
	if patchType == ApplyPatch && t.Resource.Fields != nil {
		return guarded(s, ctx, t.key(name), useCache && !opts.DryRun, nil, func(st stored) (Result, error) {
			return s.applyOnce(ctx, t, name, body, opts, st)
		})
	}
	return guarded(s, ctx, t.key(name), useCache && !opts.DryRun, nil, func(st stored) (Result, error) {
		w, err := s.loadFrom(ctx, t, name, opts, st)
		if err != nil {
			return Result{}, err
		}
		return s.patchOver(ctx, w, patchType, body)
	})
}

// patchOver applies the patch to the object w loaded and writes the result.
func (s *Service) patchOver(ctx context.Context, w *Write, patchType string, body []byte) (Result, error) {
	t := w.Target
	var err error
	switch patchType {
	case MergePatch:
		// The merge keeps the last of duplicate keys; kube-apiserver reports the others.
		var found []string
		body, found = schema.DropDuplicates(body)
		w.reportFields("duplicate", found)
	case JSONPatch:
		problems := patch.JSONFieldProblems(body)
		w.report(problems, problems)
	}
	// A merge patch applies to the object without its managedFields as it
	// would to the whole: what it says of managedFields (a list, null) is
	// the result's whole list either way. JSON and strategic merge patches
	// may address the list's items, so they get the whole object.
	old := w.Old
	if patchType != MergePatch {
		if old, err = apply.WithManagedFields(w.Old, w.oldManaged); err != nil {
			return Result{}, err
		}
	}
	patched, err := applyPatch(t, patchType, old, body)
	if err != nil {
		return Result{}, err
	}
	if len(patched) > MaxObjectBytes {
		return Result{}, engine.Errorf(engine.CodeRequestEntityTooLarge,
			"Request entity too large: the patched object is %d bytes, the limit is %d", len(patched), MaxObjectBytes)
	}
	if !gjson.GetBytes(patched, "metadata.resourceVersion").Exists() {
		// A patch that drops resourceVersion applies to whatever is stored.
		if patched, err = sjson.SetBytes(patched, "metadata.resourceVersion", strconv.FormatInt(w.stored.ResourceVersion, 10)); err != nil {
			return Result{}, fmt.Errorf("restore resourceVersion: %w", err)
		}
	}
	w.Object, w.patched = patched, true
	res, err := s.run(ctx, w)
	return Result{Object: res.object, Warnings: w.Warnings}, err
}

// ErrPatchType is the UnsupportedMediaType of a patch type t does not accept.
func ErrPatchType(t Target) error {
	return engine.Errorf(engine.CodeUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: %s", strings.Join(PatchTypes(t), ", "))
}

// applyPatch applies body, a patch of patchType, to obj. Errors:
// UnsupportedMediaType, those of patch.StrategicMerge, patch.Merge and
// patch.JSON.
func applyPatch(t Target, patchType string, obj, body []byte) ([]byte, error) {
	switch patchType {
	case StrategicMergePatch:
		if !acceptsStrategicMerge(t) {
			break
		}
		var raw []byte
		if t.Version.Schema != nil {
			raw = t.Version.Schema.Raw()
		}
		return patch.StrategicMerge(obj, body, raw)
	case MergePatch:
		if gjson.ParseBytes(body).IsObject() && gjson.ValidBytes(body) {
			body, _ = schema.DropDuplicates(body) // the last wins, as the walk needs (Patch has reported the others)
		}
		return patch.Merge(obj, body)
	case JSONPatch:
		return patch.JSON(obj, body, MaxObjectBytes)
	}
	return nil, ErrPatchType(t)
}

// acceptsStrategicMerge reports whether t takes a strategic merge patch:
// a built-in kind, or a definition whose schema declares patch strategies.
// kube-apiserver refuses it for custom resources, which declare none.
func acceptsStrategicMerge(t Target) bool {
	if registry.IsBuiltinFile(t.Resource.File) {
		return true
	}
	return t.Version.Schema != nil && patch.DeclaresStrategies(t.Version.Schema.Raw())
}
