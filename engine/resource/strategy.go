package resource

import (
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"

	"github.com/dynapi/dynapi/engine"
)

// Strategy is what the server does for one resource beyond its schema, as
// kube-apiserver's REST strategies do for its kinds: what a create or an
// update may set, the checks a schema cannot express, what a delete does.
// Kinds the server owns register one with Service.Register; every other
// resource gets CustomResource. A strategy embeds CustomResource and
// overrides what differs.
type Strategy interface {
	// NameRule validates metadata.name.
	NameRule() apivalidation.ValidateNameFunc
	// AllowUnconditionalUpdate reports whether an update without a
	// resourceVersion applies to whatever is stored.
	AllowUnconditionalUpdate() bool
	// DeletesCollections reports whether DELETE on the collection is served.
	DeletesCollections() bool
	// Subresources are the subresources served beyond status, each taking
	// updates (PUT) through the pipeline with w.Target.Subresource set.
	Subresources() []string
	// PrepareForCreate sets what the server owns in a new object (w.Object,
	// w.Meta), before it is validated.
	PrepareForCreate(w *Write) error
	// PrepareForUpdate carries from w.Old into w.Object what the update
	// (of w.Target.Subresource) may not change.
	PrepareForUpdate(w *Write) error
	// Validate returns the problems of w.Object that its schema cannot
	// express (answered 422 with the schema's), and warnings.
	Validate(w *Write) ([]engine.FieldError, []string)
	// PrepareForDelete decides whether the stored object w.Object (in its
	// storage version) stays, marked for deletion, rather than going at
	// once, and may change what is marked. Errors refuse the delete.
	PrepareForDelete(w *Write) (pending bool, err error)
	// Finalized reports whether a marked object whose metadata.finalizers
	// are gone may be removed now.
	Finalized(stored []byte) bool
	// AfterWrite runs after w was stored (not on dry run).
	AfterWrite(w *Write)
}

// CustomResource is the strategy of custom resources, kube-apiserver's for
// CustomResourceDefinitions: the status subresource owns status, a delete
// waits for metadata.finalizers. Server-owned kinds embed it.
type CustomResource struct{}

var _ Strategy = CustomResource{}

// NameRule requires a DNS subdomain, as for every custom resource.
func (CustomResource) NameRule() apivalidation.ValidateNameFunc {
	return apivalidation.NameIsDNSSubdomain
}

// AllowUnconditionalUpdate is false: a PUT must carry the resourceVersion it read.
func (CustomResource) AllowUnconditionalUpdate() bool { return false }

// DeletesCollections is true.
func (CustomResource) DeletesCollections() bool { return true }

// Subresources is none beyond status.
func (CustomResource) Subresources() []string { return nil }

// PrepareForCreate drops the status of a kind with a status subresource:
// it is written only through it.
func (CustomResource) PrepareForCreate(w *Write) error {
	if !w.Target.Version.Subresources.Status {
		return nil
	}
	return w.Drop("status")
}

// PrepareForUpdate keeps the stored status on the main resource of a kind
// with a status subresource, and takes only the status through /status:
// everything else is the stored object's.
func (CustomResource) PrepareForUpdate(w *Write) error {
	switch {
	case w.Target.Subresource == "status":
		obj, err := copyField(w.Old, w.Object, "status")
		if err != nil {
			return err
		}
		w.Object, w.Meta = obj, w.OldMeta.DeepCopy()
	case w.Target.Version.Subresources.Status:
		return w.Keep("status")
	}
	return nil
}

// Validate finds nothing beyond the schema.
func (CustomResource) Validate(*Write) ([]engine.FieldError, []string) { return nil, nil }

// PrepareForDelete keeps an object with finalizers, marked: the first
// delete sets a grace period of 0 and bumps generation, as graceful
// deletion does in kube-apiserver.
func (CustomResource) PrepareForDelete(w *Write) (bool, error) {
	if !hasFinalizers(w.Object) {
		return false, nil
	}
	if gjson.GetBytes(w.Object, "metadata.deletionTimestamp").Exists() {
		return true, nil
	}
	body, err := sjson.SetBytes(w.Object, "metadata.deletionGracePeriodSeconds", 0)
	if err != nil {
		return false, fmt.Errorf("mark for deletion: %w", err)
	}
	body, err = sjson.SetBytes(body, "metadata.generation", gjson.GetBytes(w.Object, "metadata.generation").Int()+1)
	if err != nil {
		return false, fmt.Errorf("mark for deletion: %w", err)
	}
	w.Object = body
	return true, nil
}

// Finalized is true: metadata.finalizers are all there is.
func (CustomResource) Finalized([]byte) bool { return true }

// AfterWrite does nothing.
func (CustomResource) AfterWrite(*Write) {}

// hasFinalizers reports whether an object still has finalizers.
func hasFinalizers(obj []byte) bool {
	return len(gjson.GetBytes(obj, "metadata.finalizers").Array()) > 0
}
