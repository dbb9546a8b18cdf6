package resource

import (
	"context"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
)

// The scale subresource shows and sets one field of an object, the
// replicas at the version's specReplicasPath, as an autoscaling/v1 Scale,
// as kube-apiserver does for a CustomResourceDefinition's
// subresources.scale: spec.replicas from specReplicasPath, status.replicas
// from statusReplicasPath, status.selector from labelSelectorPath. A write
// to it is an update of the object through the pipeline, with
// Target.Subresource "scale", that changes that field only.

// ScaleSubresource is the name of the scale subresource.
const ScaleSubresource = "scale"

// ScaleOf renders obj, in the version of t, as an autoscaling/v1 Scale.
func ScaleOf(t Target, obj []byte) []byte {
	sc := t.Version.Subresources.Scale
	m := gjson.GetBytes(obj, "metadata")
	out := []byte(`{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{}}`)
	for _, f := range []string{"name", "namespace", "uid", "resourceVersion", "creationTimestamp"} {
		if v := m.Get(f); v.Exists() {
			out, _ = sjson.SetRawBytes(out, "metadata."+f, []byte(v.Raw))
		}
	}
	if n := gjson.GetBytes(obj, scalePath(sc.SpecReplicasPath)).Int(); n != 0 {
		out, _ = sjson.SetBytes(out, "spec.replicas", n)
	} else {
		out, _ = sjson.SetRawBytes(out, "spec", []byte("{}"))
	}
	out, _ = sjson.SetBytes(out, "status.replicas", gjson.GetBytes(obj, scalePath(sc.StatusReplicasPath)).Int())
	if sc.LabelSelectorPath != "" {
		if sel := gjson.GetBytes(obj, scalePath(sc.LabelSelectorPath)).String(); sel != "" {
			out, _ = sjson.SetBytes(out, "status.selector", sel)
		}
	}
	return out // values copied from valid JSON into a fresh object cannot fail
}

// scalePath turns a scale path (".spec.replicas") into a gjson path.
func scalePath(p string) string { return fieldPath(strings.TrimPrefix(p, ".")) }

// servesScale reports whether the target's version has a scale subresource.
func servesScale(t Target) bool { return t.Version.Subresources.Scale != nil }

// GetScale returns the Scale of the object name. Errors: NotFound (also
// when the version has no scale subresource).
func (s *Service) GetScale(ctx context.Context, t Target, name string) ([]byte, error) {
	if err := s.checkSubresource(t, name); err != nil {
		return nil, err
	}
	obj, err := s.Get(ctx, t, name)
	if err != nil {
		return nil, err
	}
	return ScaleOf(t, obj), nil
}

// UpdateScale sets the replicas of the object name to spec.replicas of
// scale, an autoscaling/v1 Scale (JSON), and returns the Scale of the
// object written. With metadata.resourceVersion set, the Scale must be
// of the stored object's. Errors: BadRequest, Invalid, NotFound, Conflict.
func (s *Service) UpdateScale(ctx context.Context, t Target, name string, scale []byte, opts WriteOptions) (Result, error) {
	w, err := s.loadForUpdate(ctx, t, name, opts)
	if err != nil {
		return Result{}, err
	}
	return s.writeScale(ctx, w, scale)
}

// PatchScale applies a merge or JSON patch (a strategic merge patch is a
// merge patch: a Scale has no lists) to the object's Scale and writes the
// result as UpdateScale does, re-reading on a conflict when the patch
// sets no resourceVersion. Errors: those of UpdateScale, UnsupportedMediaType.
func (s *Service) PatchScale(ctx context.Context, t Target, name, patchType string, patch []byte, opts WriteOptions) (Result, error) {
	if patchType == StrategicMergePatch {
		patchType = MergePatch
	}
	if patchType != MergePatch && patchType != JSONPatch {
		return Result{}, engine.Errorf(engine.CodeUnsupportedMediaType,
			"the body of the request was in an unknown format - accepted media types include: %s, %s, %s", JSONPatch, MergePatch, StrategicMergePatch)
	}
	for attempt := 0; ; attempt++ {
		w, err := s.loadForUpdate(ctx, t, name, opts)
		if err != nil {
			return Result{}, err
		}
		current := ScaleOf(t, w.Old)
		patched, err := applyPatch(t, patchType, current, patch)
		if err != nil {
			return Result{}, err
		}
		res, err := s.writeScale(ctx, w, patched)
		// A conflict is retried unless the patch set the resourceVersion.
		rv := gjson.GetBytes(current, "metadata.resourceVersion").String()
		if engine.ErrorCode(err) != engine.CodeConflict || attempt >= maxConflictRetries ||
			gjson.GetBytes(patched, "metadata.resourceVersion").String() != rv {
			return res, err
		}
	}
}

// writeScale writes the replicas of scale into w.Old and runs the update.
func (s *Service) writeScale(ctx context.Context, w *Write, scale []byte) (Result, error) {
	t := w.Target
	replicas, rv, err := readScale(t, w.Name, scale)
	if err != nil {
		return Result{}, err
	}
	obj, err := sjson.SetBytes(w.Old, scalePath(t.Version.Subresources.Scale.SpecReplicasPath), replicas)
	if err != nil {
		return Result{}, fmt.Errorf("set replicas: %w", err)
	}
	if rv != "" {
		if obj, err = sjson.SetBytes(obj, "metadata.resourceVersion", rv); err != nil {
			return Result{}, fmt.Errorf("set replicas: %w", err)
		}
	}
	w.Object, w.patched = obj, true
	res, err := s.run(ctx, w)
	if err != nil {
		return Result{}, err
	}
	return Result{Object: ScaleOf(t, res.object), Warnings: w.Warnings}, nil
}

// readScale reads spec.replicas and metadata.resourceVersion of a Scale.
// Errors: BadRequest for what is not a Scale, Invalid for negative
// replicas or another object's name.
func readScale(t Target, name string, scale []byte) (int64, string, error) {
	if !gjson.ValidBytes(scale) || !gjson.ParseBytes(scale).IsObject() {
		return 0, "", engine.Errorf(engine.CodeBadRequest, "the body must be an autoscaling/v1 Scale")
	}
	if k := gjson.GetBytes(scale, "kind").String(); k != "" && k != "Scale" {
		return 0, "", engine.Errorf(engine.CodeBadRequest, "the body must be an autoscaling/v1 Scale, not a %s", k)
	}
	invalid := func(path, msg string) error {
		return engine.NewInvalid("autoscaling", "Scale", name, []engine.FieldError{{Type: engine.CauseInvalid, Path: path, Message: msg}})
	}
	if n := gjson.GetBytes(scale, "metadata.name").String(); n != "" && n != name {
		return 0, "", invalid("metadata.name", fmt.Sprintf("Invalid value: %q: the name of the object (%s) does not match the name on the URL (%s)", n, n, name))
	}
	r := gjson.GetBytes(scale, "spec.replicas")
	if r.Exists() && r.Type != gjson.Number {
		return 0, "", engine.Errorf(engine.CodeBadRequest, "spec.replicas must be an integer")
	}
	if r.Int() < 0 {
		return 0, "", invalid("spec.replicas", fmt.Sprintf("Invalid value: %d: must be greater than or equal to 0", r.Int()))
	}
	return r.Int(), gjson.GetBytes(scale, "metadata.resourceVersion").String(), nil
}
