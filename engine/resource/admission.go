package resource

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admission"
	"github.com/dynapi/dynapi/engine/registry"
)

// SetAdmission makes c the admission plug-ins of every write. Call it
// before the Service serves requests.
func (s *Service) SetAdmission(c *admission.Chain) { s.admission = c }

// mutatingAdmission runs the mutating plug-ins over the object as sent
// (before the server fills its metadata and the schema prunes, defaults
// and validates it, as kube-apiserver's handlers admit before the
// registry's BeforeCreate and BeforeUpdate), and takes the object they
// made. On delete they see the stored object; what they would change of
// it is not kept (kube has no object to change there). A write costs
// nothing more when no mutating plug-in is active.
func mutatingAdmission(s *Service, w *Write) error {
	if !s.admission.Mutating() {
		return nil
	}
	a, err := s.attributes(w)
	if err != nil {
		return err
	}
	var out admission.Outcome
	err = s.admission.Admit(w.Context(), a, &out)
	w.Warnings = append(w.Warnings, out.Warnings...)
	if err != nil {
		return err
	}
	return w.admitted(a.Object)
}

// validatingAdmission runs the validating plug-ins over the object as it
// will be stored (valid, its metadata filled), as kube-apiserver runs
// them from the registry after its strategy's validation. A write costs
// nothing more when no validating plug-in is active.
func validatingAdmission(s *Service, w *Write) error {
	if !s.admission.Validating() {
		return nil
	}
	a, err := s.attributes(w)
	if err != nil {
		return err
	}
	var out admission.Outcome
	err = s.admission.Validate(w.Context(), a, &out)
	w.Warnings = append(w.Warnings, out.Warnings...)
	return err
}

// admitted takes obj, the mutating plug-ins' object, as w's: on the scale
// subresource a Scale, whose replicas are set into the object.
func (w *Write) admitted(obj []byte) error {
	switch {
	case w.Operation == DeleteOperation:
		return nil
	case w.Target.Subresource == ScaleSubresource:
		replicas, _, err := readScale(w.Target, w.Name, obj)
		if err != nil {
			return err
		}
		out, err := sjson.SetBytes(w.Object, scalePath(w.Target.Version.Subresources.Scale.SpecReplicasPath), replicas)
		if err != nil {
			return fmt.Errorf("set replicas: %w", err)
		}
		w.Object = out
	default:
		w.Object = obj
	}
	return nil
}

// operations are admission's names of the pipeline's operations.
var operations = map[Operation]admission.Operation{
	CreateOperation: admission.Create, UpdateOperation: admission.Update, DeleteOperation: admission.Delete}

// attributes are w's admission attributes, as they are at this stage.
// Errors: a stored object that cannot be read in the target's version.
func (s *Service) attributes(w *Write) (*admission.Attributes, error) {
	t := w.Target
	u, _ := engine.UserFrom(w.Context())
	a := &admission.Attributes{
		Operation: operations[w.Operation],
		Kind:      engine.GroupVersionKind{Group: t.Resource.Group, Version: t.Version.Name, Kind: t.Resource.Kind},
		Resource:  t.GroupResource(), Subresource: t.Subresource, StorageVersion: t.Resource.StorageVersion,
		Name: w.Name, Namespace: t.Namespace, User: u, DryRun: w.dryRun(), Options: w.admissionOptions(),
		Object: w.Object, OldObject: w.Old,
	}
	if a.Name == "" {
		a.Name = gjson.GetBytes(w.Object, "metadata.name").String() // a create, before its metadata is read
	}
	if w.Operation == DeleteOperation {
		old, err := fromStorage(s.converter(w.Context()), t, w.stored)
		if err != nil {
			return nil, err
		}
		a.Object, a.OldObject = nil, old
	}
	if t.Subresource == ScaleSubresource {
		a.Kind = engine.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
		a.Object, a.OldObject = ScaleOf(t, a.Object), ScaleOf(t, a.OldObject)
	} else if len(t.Resource.Versions) > 1 {
		c := s.converter(w.Context())
		a.Versions, a.Convert = servedVersions(t.Resource), func(obj []byte, from, to string) ([]byte, error) {
			return convertVersion(c, t.Resource, obj, from, to)
		}
	}
	a.NamespaceLabels = func(ctx context.Context) (map[string]string, error) { return s.namespaceLabels(ctx, a) }
	return a, nil
}

// convertVersion converts obj, an object of r, between two of its
// versions, through the hub (by its webhook, for a kind converted by one).
// Errors: a version not served; the conversion's.
func convertVersion(c converter, r *registry.Resource, obj []byte, from, to string) ([]byte, error) {
	v, ok := r.Version(to)
	if !ok {
		return nil, fmt.Errorf("convert to %s: no such version of %s", to, r.GroupResource())
	}
	h, err := c.convert(r, obj, from, Hub(r))
	if err != nil {
		return nil, err
	}
	return hubIn(c, r, h, v)
}

// servedVersions are the names of r's served versions.
func servedVersions(r *registry.Resource) []string {
	var names []string
	for _, v := range r.Versions {
		if v.Served {
			names = append(names, v.Name)
		}
	}
	return names
}

// namespaceLabels are the labels of a's namespace: for a Namespace's own
// write the object's (the old object's on delete), as kube's
// namespaceSelector matches them; for a cluster-scoped object none.
// Errors: those of reading the namespace (NotFound).
func (s *Service) namespaceLabels(ctx context.Context, a *admission.Attributes) (map[string]string, error) {
	var obj []byte
	switch {
	case a.Resource == engine.Namespaces && a.Object != nil:
		obj = a.Object
	case a.Resource == engine.Namespaces:
		obj = a.OldObject
	case a.Namespace == "":
		return nil, nil
	default:
		ns, err := s.storage.Get(ctx, engine.ObjectKey{Resource: engine.Namespaces, Name: a.Namespace})
		if err != nil {
			return nil, err
		}
		obj = ns.Body
	}
	labels := map[string]string{}
	gjson.GetBytes(obj, "metadata.labels").ForEach(func(k, v gjson.Result) bool {
		labels[k.String()] = v.String()
		return true
	})
	return labels, nil
}

// admissionOptions is the operation's options object, as kube sends it
// in an AdmissionReview's request.options.
func (w *Write) admissionOptions() []byte {
	type options struct {
		Kind              string   `json:"kind"`
		APIVersion        string   `json:"apiVersion"`
		DryRun            []string `json:"dryRun,omitempty"`
		FieldManager      string   `json:"fieldManager,omitempty"`
		Force             *bool    `json:"force,omitempty"`
		PropagationPolicy string   `json:"propagationPolicy,omitempty"`
	}
	o := options{APIVersion: "meta.k8s.io/v1", FieldManager: w.Options.FieldManager}
	if w.dryRun() {
		o.DryRun = []string{"All"}
	}
	switch {
	case w.Operation == CreateOperation:
		o.Kind = "CreateOptions"
	case w.Operation == DeleteOperation:
		o.Kind, o.FieldManager, o.PropagationPolicy = "DeleteOptions", "", w.delete.PropagationPolicy
	case w.applied:
		o.Kind, o.Force = "PatchOptions", &w.Options.Force
	case w.patched && w.Target.Subresource != ScaleSubresource:
		o.Kind = "PatchOptions"
	default:
		o.Kind = "UpdateOptions"
	}
	b, _ := json.Marshal(o) // strings and bools always encode
	return b
}
