package crd

import (
	"net/url"
	"strings"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
)

// approvalAnnotation is the annotation a definition in a protected group
// must carry: kube-apiserver's KubeAPIApprovedAnnotation.
const approvalAnnotation = "api-approved.kubernetes.io"

// approvalState is kube's APIApprovalState.
type approvalState int

const (
	approvalInvalid approvalState = iota
	approved
	approvalBypassed
	approvalMissing
)

// protectedGroup reports whether group is the Kubernetes community's
// (k8s.io, kubernetes.io and their subdomains), kube's
// IsProtectedCommunityGroup: where dynapi's own review endpoints and
// built-in kinds live, so that a definition there could pass for them.
func protectedGroup(group string) bool {
	return group == "k8s.io" || strings.HasSuffix(group, ".k8s.io") ||
		group == "kubernetes.io" || strings.HasSuffix(group, ".kubernetes.io")
}

// approvalOf is kube's GetAPIApprovalState: a URL approves, a value
// starting with "unapproved" is let through, nothing or anything else is
// refused, each with kube's reason.
func approvalOf(value string) (approvalState, string) {
	u, err := url.ParseRequestURI(value)
	switch {
	case value == "":
		return approvalMissing, `protected groups must have approval annotation "` + approvalAnnotation +
			`", see https://github.com/kubernetes/enhancements/pull/1111`
	case strings.HasPrefix(value, "unapproved"):
		return approvalBypassed, ""
	case err == nil && u.Host != "" && u.Scheme != "":
		return approved, ""
	}
	return approvalInvalid, `protected groups must have approval annotation "` + approvalAnnotation +
		`" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`
}

// checkApproval refuses a definition in a protected group without the
// approval annotation, kube's validateAPIApproval: on update (old not
// nil), an annotation whose state did not change passes, so that a
// definition stored before keeps being updated.
func checkApproval(obj, old []byte) []engine.FieldError {
	if !protectedGroup(gjson.GetBytes(obj, "spec.group").Str) {
		return nil
	}
	key := "metadata.annotations." + gjson.Escape(approvalAnnotation)
	value := gjson.GetBytes(obj, key).Str
	state, reason := approvalOf(value)
	if old != nil {
		if was, _ := approvalOf(gjson.GetBytes(old, key).Str); was == state {
			return nil
		}
	}
	path := field.NewPath("metadata", "annotations").Key(approvalAnnotation)
	switch state {
	case approvalMissing:
		return []engine.FieldError{{Type: engine.CauseRequired, Path: path.String(), Message: field.Required(path, reason).ErrorBody()}}
	case approvalInvalid:
		return []engine.FieldError{{Type: engine.CauseInvalid, Path: path.String(), Message: field.Invalid(path, value, reason).ErrorBody()}}
	}
	return nil
}
