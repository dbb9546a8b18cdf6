package admissionpolicy

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/util/jsonpath"
)

// ValidateValidatingPolicyStatus returns kube's errors for a status
// written through /status (kube's ValidateValidatingAdmissionPolicyStatusUpdate):
// each expression warning has a warning and a fieldRef that parses as a
// JSONPath, and conditions are metav1 conditions.
func ValidateValidatingPolicyStatus(s *v1.ValidatingAdmissionPolicyStatus) field.ErrorList {
	path := field.NewPath("status")
	var errs field.ErrorList
	if s.TypeChecking != nil {
		warnings := path.Child("typeChecking", "expressionWarnings")
		for i, w := range s.TypeChecking.ExpressionWarnings {
			errs = append(errs, validateExpressionWarning(w, warnings.Index(i))...)
		}
	}
	return append(errs, metav1validation.ValidateConditions(s.Conditions, path.Child("conditions"))...)
}

func validateExpressionWarning(w v1.ExpressionWarning, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if w.Warning == "" {
		errs = append(errs, field.Required(path.Child("warning"), ""))
	}
	ref := strings.TrimSpace(w.FieldRef)
	if ref == "" {
		return append(errs, field.Required(path.Child("fieldRef"), ""))
	}
	if err := jsonpath.New("spec").Parse(fmt.Sprintf("{%s}", ref)); err != nil {
		errs = append(errs, field.Invalid(path.Child("fieldRef"), ref, fmt.Sprintf("invalid JSONPath: %v", err)))
	}
	return errs
}
