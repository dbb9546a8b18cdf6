package resource

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	jsonpatch "github.com/evanphx/json-patch/v5"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/dynapi/dynapi/engine"
)

// Patch types. JSON and merge patches apply to every kind. A strategic
// merge patch needs the kind's Go type, for its lists' merge keys: only
// built-in kinds have one, as in kube-apiserver, which refuses it for
// custom resources.
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

// goTypes are the Go types of the built-in kinds, for strategic merge
// patches: kubectl sends them for a Namespace (apply, edit, patch).
var goTypes = map[engine.GroupResource]any{engine.Namespaces: corev1.Namespace{}}

// PatchTypes are the patch types t accepts, as the 415 of another lists
// them.
func PatchTypes(t Target) []string {
	if _, ok := goTypes[t.GroupResource()]; ok {
		return []string{JSONPatch, MergePatch, StrategicMergePatch}
	}
	return []string{JSONPatch, MergePatch}
}

// Patch applies a merge patch or JSON patch to the object name (or to the
// subresource t names) and writes the result through the update pipeline.
// Without a resourceVersion in the patch, a concurrent write makes it
// re-read and re-apply, as kube-apiserver does.
// Errors: UnsupportedMediaType, BadRequest, Invalid, NotFound, Conflict.
func (s *Service) Patch(ctx context.Context, t Target, name, patchType string, patch []byte, opts WriteOptions) (Result, error) {
	for attempt := 0; ; attempt++ {
		res, err := s.patchOnce(ctx, t, name, patchType, patch, opts)
		if engine.ErrorCode(err) != engine.CodeConflict || attempt >= maxConflictRetries {
			return res, err
		}
	}
}

func (s *Service) patchOnce(ctx context.Context, t Target, name, patchType string, patch []byte, opts WriteOptions) (Result, error) {
	w, err := s.loadForUpdate(ctx, t, name, opts)
	if err != nil {
		return Result{}, err
	}
	patched, err := applyPatch(t, patchType, w.Old, patch)
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
		goType, ok := goTypes[t.GroupResource()]
		if !ok {
			break
		}
		out, err := strategicpatch.StrategicMergePatch(obj, patch, goType)
		if err != nil {
			return nil, engine.Errorf(engine.CodeBadRequest, "invalid strategic merge patch: %v", err)
		}
		return out, nil
	case MergePatch:
		if !gjson.ParseBytes(patch).IsObject() {
			return nil, errNotObject(patch)
		}
		out, err := jsonpatch.MergePatch(obj, patch)
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
