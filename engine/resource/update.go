package resource

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/apply"
	"github.com/dynapi/dynapi/engine/meta"
)

// Update replaces the object name with body (JSON, in the target's
// version), or, with t.Subresource set, writes that subresource: /status
// takes only the status from body, another subresource what the resource's
// strategy says. body must carry the resourceVersion it was read at, unless
// the strategy allows unconditional updates.
// Errors: BadRequest, Invalid, NotFound (also for a subresource not
// served), Conflict.
//
// It starts from the cached object when the body's resourceVersion is
// the cached one's (or the body has none): see guarded.
func (s *Service) Update(ctx context.Context, t Target, name string, body []byte, opts WriteOptions) (Result, error) {
	if err := s.checkSubresource(t, name); err != nil {
		return Result{}, err
	}
	rv := gjson.GetBytes(body, "metadata.resourceVersion").Str
	accept := func(o engine.Object) bool { return rv == "" || rv == strconv.FormatInt(o.ResourceVersion, 10) }
	return guarded(s, ctx, t.key(name), !opts.DryRun, accept, func(st stored) (Result, error) {
		w, err := s.loadFrom(ctx, t, name, opts, st)
		if err != nil {
			return Result{}, err
		}
		w.Object = body
		res, err := s.run(ctx, w)
		return Result{Object: res.object, Warnings: w.Warnings}, err
	})
}

// loadForUpdate reads the object an update replaces and converts it to the
// target's version, once for the whole write.
func (s *Service) loadForUpdate(ctx context.Context, t Target, name string, opts WriteOptions) (*Write, error) {
	if err := s.checkSubresource(t, name); err != nil {
		return nil, err
	}
	return s.loadFrom(ctx, t, name, opts, s.load(ctx, t.key(name)))
}

// loadFrom converts the object an update replaces, st, to the target's
// version, once for the whole write. Errors: st's.
func (s *Service) loadFrom(ctx context.Context, t Target, name string, opts WriteOptions, st stored) (*Write, error) {
	if st.err != nil {
		return nil, st.err
	}
	stored := st.obj
	w := &Write{Target: t, Operation: UpdateOperation, Name: name, Options: opts, stored: stored, cached: st.cached}
	c := s.converter(ctx)
	var err error
	if w.oldHub, w.oldDefaulted, err = storedToHub(c, t.Resource, stored); err != nil {
		return nil, err
	}
	if w.Old, err = hubIn(c, t.Resource, w.oldHub, t.Version); err != nil {
		return nil, err
	}
	if w.Old, w.oldManaged, err = apply.CutManagedFields(w.Old); err != nil {
		return nil, err
	}
	w.OldMeta, err = meta.Parse(w.Old)
	return w, err
}

// checkSubresource answers NotFound for a subresource the target does not
// serve.
func (s *Service) checkSubresource(t Target, name string) error {
	switch {
	case t.Subresource == "":
		return nil
	case t.Subresource == "status" && t.Version.Subresources.Status:
		return nil
	case t.Subresource == ScaleSubresource && servesScale(t):
		return nil
	case t.Subresource != "status" && slices.Contains(s.Strategy(t.GroupResource()).Subresources(), t.Subresource):
		return nil
	}
	return engine.NewNotFound(engine.GroupResource{Group: t.Resource.Group, Resource: t.Resource.Plural + "/" + t.Subresource}, name)
}

// parseResourceVersion reads the resourceVersion an update is based on.
// Errors: Invalid when it is missing or not a resourceVersion.
func parseResourceVersion(t Target, m *metav1.ObjectMeta) (int64, error) {
	if m.ResourceVersion == "" {
		return 0, engine.NewInvalid(t.Resource.Group, t.Resource.Kind, m.Name, []engine.FieldError{{
			Type: engine.CauseInvalid, Path: "metadata.resourceVersion", Message: "Invalid value: 0x0: must be specified for an update"}})
	}
	rv, err := strconv.ParseInt(m.ResourceVersion, 10, 64)
	if err != nil || rv <= 0 {
		return 0, engine.NewInvalid(t.Resource.Group, t.Resource.Kind, m.Name, []engine.FieldError{{
			Type: engine.CauseInvalid, Path: "metadata.resourceVersion", Message: fmt.Sprintf("Invalid value: %q: must be a valid resourceVersion", m.ResourceVersion)}})
	}
	return rv, nil
}

// keepServerMeta carries the metadata only the server may change from the
// stored object into the new one.
func keepServerMeta(m, old *metav1.ObjectMeta) {
	m.UID = old.UID
	m.CreationTimestamp = old.CreationTimestamp
	m.DeletionTimestamp = old.DeletionTimestamp
	m.DeletionGracePeriodSeconds = old.DeletionGracePeriodSeconds
	m.Generation = old.Generation
	m.SelfLink = "" // no longer populated by Kubernetes: drop what a client sent
}

// copyField sets field of obj to its value in from, or removes it when from has none.
func copyField(obj, from []byte, field string) ([]byte, error) {
	var out []byte
	var err error
	if v := gjson.GetBytes(from, field); v.Exists() {
		out, err = sjson.SetRawBytes(obj, field, []byte(v.Raw))
	} else {
		out, err = sjson.DeleteBytes(obj, field)
	}
	if err != nil {
		return nil, fmt.Errorf("copy %s: %w", field, err)
	}
	return out, nil
}
