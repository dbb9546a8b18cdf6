package storageversionmigration

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/sjson"
	svmv1 "k8s.io/api/storagemigration/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/meta"
	"github.com/dynapi/dynapi/engine/resource"
)

// Resource is the resource the Strategy serves.
var Resource = engine.GroupResource{Group: svmv1.GroupName, Resource: "storageversionmigrations"}

// Strategy is the StorageVersionMigration kind's strategy,
// kube-apiserver's (pkg/registry/storagemigration): status is written
// only through /status (resource.CustomResource does that), spec cannot
// change, and a status update keeps kube's rules for conditions and
// status.resourceVersion.
type Strategy struct {
	resource.CustomResource
	// created is told of every migration created through the Service.
	created func()
}

var _ resource.Strategy = Strategy{}

// PrepareForCreate clears the status, as kube-apiserver does: its typed
// object then reads with an empty status, which a JSON patch's add of
// /status/conditions needs.
func (Strategy) PrepareForCreate(w *resource.Write) error {
	obj, err := sjson.SetRawBytes(w.Object, "status", []byte("{}"))
	if err != nil {
		return fmt.Errorf("clear status: %w", err)
	}
	w.Object = obj
	return nil
}

// AfterWrite tells the Controller of a new migration, so that it starts
// without waiting for its next look.
func (s Strategy) AfterWrite(w *resource.Write) {
	if w.Operation == resource.CreateOperation && s.created != nil {
		s.created()
	}
}

// Validate returns kube-apiserver's errors
// (pkg/apis/storagemigration/validation) for the spec on create and
// update, for a change of spec, and for a status update.
func (Strategy) Validate(w *resource.Write) ([]engine.FieldError, []string) {
	var obj, old svmv1.StorageVersionMigration
	// The schema passed: both decode.
	_ = json.Unmarshal(w.Object, &obj)
	if w.Operation != resource.UpdateOperation {
		return meta.FieldErrors(validateSpec(&obj)), nil
	}
	_ = json.Unmarshal(w.Old, &old)
	if w.Target.Subresource == "status" {
		return meta.FieldErrors(validateStatusUpdate(&obj, &old)), nil
	}
	errs := validateSpec(&obj)
	if w.Changed("spec") {
		// kube compares its internal type, whose JSON names the field
		// as Go does: the value in its message reads so.
		type internalSpec struct{ Resource metav1.GroupResource }
		errs = append(errs, field.Invalid(field.NewPath("spec"), internalSpec{obj.Spec.Resource}, "field is immutable"))
	}
	return meta.FieldErrors(errs), nil
}

// validateSpec is kube's ValidateStorageVersionMigration without the
// metadata, which the pipeline validates: the resource is a DNS-1035
// label, the group a DNS-1123 subdomain, as for an APIService.
func validateSpec(svm *svmv1.StorageVersionMigration) field.ErrorList {
	var errs field.ErrorList
	res := svm.Spec.Resource
	path := field.NewPath("spec", "resource")
	if res.Resource == "" {
		errs = append(errs, field.Required(path.Child("resource"), "resource is required to be set"))
	} else if msgs := utilvalidation.IsDNS1035Label(res.Resource); len(msgs) > 0 {
		errs = append(errs, field.Invalid(path.Child("resource"), res.Resource, strings.Join(msgs, ",")))
	}
	if res.Group != "" {
		if msgs := utilvalidation.IsDNS1123Subdomain(res.Group); len(msgs) > 0 {
			errs = append(errs, field.Invalid(path.Child("group"), res.Group, strings.Join(msgs, ",")))
		}
	}
	return errs
}

// validateStatusUpdate is kube's ValidateStorageVersionMigrationStatusUpdate
// without the metadata: a well-formed resourceVersion that never changes
// once set, well-formed conditions, Succeeded and Failed never both true,
// and neither true turned back.
func validateStatusUpdate(svm, old *svmv1.StorageVersionMigration) field.ErrorList {
	path := field.NewPath("status")
	var errs field.ErrorList
	if rv := svm.Status.ResourceVersion; rv != "" {
		if _, err := resourceversion.CompareResourceVersion(rv, rv); err != nil {
			errs = append(errs, field.Invalid(path.Child("resourceVersion"), rv, err.Error()))
		}
	}
	errs = append(errs, metav1validation.ValidateConditions(svm.Status.Conditions, path.Child("conditions"))...)
	if old.Status.ResourceVersion != "" && old.Status.ResourceVersion != svm.Status.ResourceVersion {
		errs = append(errs, field.Invalid(path.Child("resourceVersion"), svm.Status.ResourceVersion, "field is immutable"))
	}
	conditions := path.Child("conditions")
	if isTrue(svm, svmv1.MigrationSucceeded) && isTrue(svm, svmv1.MigrationFailed) {
		errs = append(errs, field.Invalid(conditions, svm.Status.Conditions, "Both success and failed conditions cannot be true at the same time"))
	}
	for _, c := range []struct {
		cond svmv1.MigrationConditionType
		name string
	}{{svmv1.MigrationSucceeded, "Success"}, {svmv1.MigrationFailed, "Failed"}} {
		if isTrue(old, c.cond) && !isTrue(svm, c.cond) {
			errs = append(errs, field.Invalid(conditions, svm.Status.Conditions, fmt.Sprintf("%s condition cannot be set to false once it is true", c.name)))
		}
	}
	return errs
}

// isTrue reports whether svm's condition of type cond is True.
func isTrue(svm *svmv1.StorageVersionMigration, cond svmv1.MigrationConditionType) bool {
	return apimeta.IsStatusConditionTrue(svm.Status.Conditions, string(cond))
}
