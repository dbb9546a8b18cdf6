package meta

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"

	"github.com/dynapi/dynapi/engine"
)

// ValidateDeleteOptions checks a DeleteOptions as kube-apiserver does:
// propagationPolicy one of Orphan, Background, Foreground and not set
// with orphanDependents, dryRun only All.
func ValidateDeleteOptions(o *metav1.DeleteOptions) []engine.FieldError {
	return FieldErrors(metav1validation.ValidateDeleteOptions(o))
}
