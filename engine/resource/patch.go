package resource

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/apply"
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

// Bounds on the work of one patch, as kube-apiserver sets them: at most
// MaxJSONPatchOperations operations in a JSON patch, whose copy operations
// add at most MaxObjectBytes in all (evanphx/json-patch's
// AccumulatedCopySizeLimit, kube-apiserver's JSONPatchMaxCopyBytes), and
// an object no larger than the request body limit after any patch.
const (
	MaxJSONPatchOperations = 10000
	MaxObjectBytes         = 3 << 20
)

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
func (s *Service) Patch(ctx context.Context, t Target, name, patchType string, patch []byte, opts WriteOptions) (Result, error) {
	for attempt := 0; ; attempt++ {
		res, err := s.patchOnce(ctx, t, name, patchType, patch, opts)
		// An apply conflict between managers (it has causes) stays one.
		var e *engine.Error
		if engine.ErrorCode(err) != engine.CodeConflict || attempt >= maxConflictRetries || errors.As(err, &e) && len(e.Causes) > 0 {
			return res, err
		}
	}
}

func (s *Service) patchOnce(ctx context.Context, t Target, name, patchType string, patch []byte, opts WriteOptions) (Result, error) {
	if patchType == ApplyPatch && t.Resource.Fields != nil {
		return s.applyOnce(ctx, t, name, patch, opts)
	}
	w, err := s.loadForUpdate(ctx, t, name, opts)
	if err != nil {
		return Result{}, err
	}
	switch patchType {
	case MergePatch:
		// The merge keeps the last of duplicate keys; kube-apiserver reports the others.
		var found []string
		patch, found = schema.DropDuplicates(patch)
		w.reportFields("duplicate", found)
	case JSONPatch:
		problems := jsonPatchFields(patch)
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
	patched, err := applyPatch(t, patchType, old, patch)
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

// errNotObject answers a merge patch that is not a JSON object as
// kube-apiserver does: a 422 on the field "patch".
func errNotObject(patch []byte) error {
	value := string(patch)
	if len(value) > 64 {
		value = value[:64] + "..."
	}
	msg := "Invalid value: " + strconv.Quote(value) + ": a merge patch must be a JSON object"
	return &engine.Error{Code: engine.CodeInvalid, Message: "patch: " + msg,
		Causes: []engine.FieldError{{Type: engine.CauseInvalid, Path: "patch", Message: msg}}}
}

// applyPatch applies patch to obj. Errors: UnsupportedMediaType, BadRequest
// for a malformed patch, Invalid for a patch that does not apply.
func applyPatch(t Target, patchType string, obj, patch []byte) ([]byte, error) {
	switch patchType {
	case StrategicMergePatch:
		if !acceptsStrategicMerge(t) {
			break
		}
		out, err := strategicMerge(t, obj, patch)
		if err != nil {
			return nil, engine.Errorf(engine.CodeBadRequest, "invalid strategic merge patch: %v", err)
		}
		return out, nil
	case MergePatch:
		if !gjson.ParseBytes(patch).IsObject() {
			return nil, errNotObject(patch)
		}
		if !gjson.ValidBytes(patch) {
			return nil, engine.Errorf(engine.CodeBadRequest, "invalid merge patch: not JSON")
		}
		patch, _ = schema.DropDuplicates(patch) // the last wins, as the walk needs (Patch has reported the others)
		out, err := mergePatch(obj, patch)
		if err != nil {
			return nil, engine.Errorf(engine.CodeBadRequest, "invalid merge patch: %v", err)
		}
		return out, nil
	case JSONPatch:
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, engine.Errorf(engine.CodeBadRequest, "invalid JSON patch: %v", err)
		}
		if len(p) > MaxJSONPatchOperations { // kube-apiserver's words
			return nil, engine.Errorf(engine.CodeRequestEntityTooLarge,
				"The allowed maximum operations in a JSON patch is %d, got %d", MaxJSONPatchOperations, len(p))
		}
		return applyJSONPatch(p, obj)
	}
	return nil, ErrPatchType(t)
}

// applyJSONPatch applies a decoded JSON patch. Errors: BadRequest for an
// add, replace or test without a value (evanphx/json-patch dereferences
// the missing value of a test at the root: a fuzz crasher), Invalid for a
// patch that does not apply.
func applyJSONPatch(p jsonpatch.Patch, obj []byte) ([]byte, error) {
	for i, op := range p {
		switch op.Kind() {
		case "add", "replace", "test":
			if _, ok := op["value"]; !ok {
				return nil, engine.Errorf(engine.CodeBadRequest, "invalid JSON patch: operation %d (%s) has no value", i, op.Kind())
			}
		}
	}
	opts := jsonpatch.NewApplyOptions()
	opts.AccumulatedCopySizeLimit = MaxObjectBytes
	out, err := p.ApplyWithOptions(obj, opts)
	if err != nil {
		return nil, &engine.Error{Code: engine.CodeInvalid, Message: "the JSON patch could not be applied: " + err.Error()}
	}
	return out, nil
}

// jsonPatchOpFields are the members of a JSON patch operation.
var jsonPatchOpFields = []string{"op", "path", "value", "from"}

// jsonPatchFields reports the unknown and duplicate members of a JSON
// patch's operations, in the order kube-apiserver's strict decoder finds
// them (`json patch unknown field "[0].foo"`, `json patch duplicate field
// "[1].path"`).
func jsonPatchFields(patch []byte) []string {
	var out []string
	for i, op := range gjson.ParseBytes(patch).Array() {
		var seen []string
		op.ForEach(func(k, _ gjson.Result) bool {
			switch {
			case !slices.Contains(jsonPatchOpFields, k.Str):
				out = append(out, fmt.Sprintf("json patch unknown field %q", fmt.Sprintf("[%d].%s", i, k.Str)))
			case slices.Contains(seen, k.Str):
				out = append(out, fmt.Sprintf("json patch duplicate field %q", fmt.Sprintf("[%d].%s", i, k.Str)))
			}
			seen = append(seen, k.Str)
			return true
		})
	}
	return out
}
