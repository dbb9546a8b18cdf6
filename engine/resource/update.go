package resource

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
)

// Update replaces the object name with body (JSON, in the target's
// version). body must carry the resourceVersion it was read at, as
// kube-apiserver requires for custom resources.
// Errors: BadRequest, Invalid, NotFound, Conflict.
func (s *Service) Update(ctx context.Context, t Target, name string, body []byte, opts WriteOptions) (Result, error) {
	return s.replace(ctx, t, name, body, false, opts)
}

// UpdateStatus replaces the status of the object name with body's status;
// everything else in body is ignored, as for the status subresource of a
// custom resource. Errors: as Update, and NotFound when the version has no
// status subresource.
func (s *Service) UpdateStatus(ctx context.Context, t Target, name string, body []byte, opts WriteOptions) (Result, error) {
	if !t.Version.Subresources.Status {
		return Result{}, errNoStatus(t, name)
	}
	return s.replace(ctx, t, name, body, true, opts)
}

func errNoStatus(t Target, name string) error {
	return engine.NewNotFound(engine.GroupResource{Group: t.Resource.Group, Resource: t.Resource.Plural + "/status"}, name)
}

func (s *Service) replace(ctx context.Context, t Target, name string, body []byte, status bool, opts WriteOptions) (Result, error) {
	body, warnings, err := duplicateFields(t, body, opts.FieldValidation)
	if err != nil {
		return Result{}, err
	}
	old, err := s.Store.Get(ctx, t.key(name))
	if err != nil {
		return Result{}, err
	}
	r, err := s.update(ctx, t, old, body, status, opts)
	r.Warnings = append(warnings, r.Warnings...)
	return r, err
}

// checkReplacement checks that body may replace the object name and returns
// its metadata and the resourceVersion it was based on.
// Errors: BadRequest, Invalid.
func checkReplacement(t Target, name string, body []byte) (*metav1.ObjectMeta, int64, error) {
	if err := checkTypeMeta(t, body); err != nil {
		return nil, 0, err
	}
	m, err := parseMeta(t, body)
	if err != nil {
		return nil, 0, err
	}
	if m.Name != name {
		return nil, 0, engine.Errorf(engine.CodeBadRequest, "the name of the object (%s) does not match the name on the URL (%s)", m.Name, name)
	}
	rv, err := parseResourceVersion(t, m)
	return m, rv, err
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

// update writes body over old, if old is still at body's resourceVersion. A
// status update takes only the status from body.
func (s *Service) update(ctx context.Context, t Target, old engine.Object, body []byte, status bool, opts WriteOptions) (Result, error) {
	oldObj, err := fromStorage(t, old)
	if err != nil {
		return Result{}, err
	}
	m, rv, err := checkReplacement(t, old.Key.Name, body)
	if err != nil {
		return Result{}, err
	}
	if rv != old.ResourceVersion {
		return Result{}, engine.NewConflict(t.GroupResource(), m.Name, conflictReason)
	}
	if status {
		if body, err = copyField(oldObj, body, "status"); err != nil {
			return Result{}, err
		}
		if m, err = meta.Parse(body); err != nil {
			return Result{}, err
		}
	}
	oldM, err := meta.Parse(oldObj)
	if err != nil {
		return Result{}, err
	}
	if m.UID != "" && m.UID != oldM.UID {
		return Result{}, engine.NewConflict(t.GroupResource(), m.Name,
			fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", m.UID, oldM.UID))
	}
	keepServerMeta(t, m, oldM)
	obj, err := meta.Set(body, m)
	if err == nil && t.Version.Subresources.Status && !status {
		obj, err = copyField(obj, oldObj, "status")
	}
	if err == nil && isNamespaces(t) && !opts.finalize {
		// Only Finalize changes them, as in kube-apiserver.
		obj, err = copyField(obj, oldObj, "spec.finalizers")
	}
	if err != nil {
		return Result{}, err
	}
	metaErrs := meta.ValidateUpdate(m, oldM, t.Resource.Namespaced, meta.NameRule(isNamespaces(t)))
	obj, warnings, err := admit(t, m.Name, obj, oldObj, metaErrs, opts)
	if err == nil && !status {
		var more []string
		more, err = s.check(t, m.Name, obj)
		warnings = append(warnings, more...)
	}
	if err != nil {
		return Result{}, err
	}
	if obj, err = bumpGeneration(t, obj, oldObj); err != nil {
		return Result{}, err
	}
	if sameJSON(obj, oldObj) || opts.DryRun {
		// An update that changes nothing writes nothing and keeps the
		// resourceVersion, as kube-apiserver does.
		return Result{Object: obj, Warnings: warnings}, nil
	}
	out, err := s.write(ctx, t, m, obj, old)
	return Result{Object: out, Warnings: warnings}, err
}

// conflictReason is kube-apiserver's text for a stale resourceVersion.
const conflictReason = "the object has been modified; please apply your changes to the latest version and try again"

// write stores an updated object over old and deletes it when its last
// finalizer went away while it was marked for deletion (for a namespace,
// those in spec.finalizers too).
func (s *Service) write(ctx context.Context, t Target, m *metav1.ObjectMeta, obj []byte, old engine.Object) ([]byte, error) {
	stored, err := toStorage(t, m.Name, obj, old.ResourceVersion, &old)
	if err != nil {
		return nil, err
	}
	updated, err := s.Store.Update(ctx, stored)
	if err != nil {
		return nil, err
	}
	switch {
	case m.DeletionTimestamp == nil || len(m.Finalizers) > 0:
	case isNamespaces(t) && len(specFinalizers(obj)) > 0:
		s.poke() // deleted once empty, by FinalizeNamespaces
	default:
		if updated, err = s.Store.Delete(ctx, updated.Key, updated.ResourceVersion); err != nil {
			return nil, err
		}
		if updated.Key.Namespace != "" {
			s.poke() // its namespace may be waiting for it
		}
	}
	return fromStorage(t, updated)
}

// keepServerMeta carries the metadata only the server may change from the
// stored object into the new one.
func keepServerMeta(t Target, m, old *metav1.ObjectMeta) {
	m.UID = old.UID
	m.CreationTimestamp = old.CreationTimestamp
	m.DeletionTimestamp = old.DeletionTimestamp
	m.DeletionGracePeriodSeconds = old.DeletionGracePeriodSeconds
	m.Generation = old.Generation
	m.ManagedFields = old.ManagedFields
	m.SelfLink = "" // no longer populated by Kubernetes: drop what a client sent
	if isNamespaces(t) {
		prepareNamespaceMeta(m)
	}
}

// bumpGeneration increments metadata.generation when anything but metadata
// (and status, when it has its own subresource) changed.
func bumpGeneration(t Target, obj, old []byte) ([]byte, error) {
	ignore := []string{"metadata"}
	if t.Version.Subresources.Status {
		ignore = append(ignore, "status")
	}
	if sameJSON(obj, old, ignore...) {
		return obj, nil
	}
	out, err := sjson.SetBytes(obj, "metadata.generation", gjson.GetBytes(old, "metadata.generation").Int()+1)
	if err != nil {
		return nil, fmt.Errorf("bump generation: %w", err)
	}
	return out, nil
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
