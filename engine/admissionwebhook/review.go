package admissionwebhook

import (
	"encoding/json"
	"errors"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynapi/dynapi/engine/admission"
	"github.com/dynapi/dynapi/engine/audit"
)

// The AdmissionReview versions kube sends, in the order it prefers them.
const (
	reviewV1      = "v1"
	reviewV1beta1 = "v1beta1"
)

// errNoVersion is kube's error for a webhook that accepts no review
// version it knows.
var errNoVersion = errors.New("webhook does not accept known AdmissionReview versions (v1, v1beta1)")

// reviewVersion is the first of the webhook's admissionReviewVersions
// kube knows.
func reviewVersion(h *hook) (string, error) {
	for _, v := range h.reviewVersions {
		if v == reviewV1 || v == reviewV1beta1 {
			return v, nil
		}
	}
	return "", errNoVersion
}

// newReview encodes the AdmissionReview of va (the request in the
// version the webhook sees it) in version, as kube's
// CreateV1AdmissionReview: kind and resource of the invocation, the
// request's own as requestKind and requestResource. v1beta1 has the same
// fields. It returns the body and the request's uid.
func newReview(version string, orig, va *admission.Attributes) ([]byte, types.UID, error) {
	uid := types.UID(audit.NewID())
	req := &admissionv1.AdmissionRequest{
		UID:                uid,
		Kind:               metav1.GroupVersionKind{Group: va.Kind.Group, Version: va.Kind.Version, Kind: va.Kind.Kind},
		Resource:           metav1.GroupVersionResource{Group: va.Resource.Group, Version: va.Kind.Version, Resource: va.Resource.Resource},
		SubResource:        va.Subresource,
		RequestKind:        &metav1.GroupVersionKind{Group: orig.Kind.Group, Version: orig.Kind.Version, Kind: orig.Kind.Kind},
		RequestResource:    &metav1.GroupVersionResource{Group: orig.Resource.Group, Version: orig.Kind.Version, Resource: orig.Resource.Resource},
		RequestSubResource: orig.Subresource,
		Name:               va.Name,
		Namespace:          va.Namespace,
		Operation:          admissionv1.Operation(va.Operation),
		UserInfo:           userInfo(va),
		Object:             runtime.RawExtension{Raw: va.Object},
		OldObject:          runtime.RawExtension{Raw: va.OldObject},
		DryRun:             &va.DryRun,
		Options:            runtime.RawExtension{Raw: va.Options},
	}
	if va.Subresource == "scale" {
		// a Scale's resource is the object's, its request kind the Scale's own
		req.Resource.Version = va.Kind.Version
	}
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/" + version, Kind: "AdmissionReview"},
		Request:  req,
	}
	body, err := json.Marshal(review)
	return body, uid, err
}

// userInfo is the request's user as kube sends it.
func userInfo(a *admission.Attributes) authenticationv1.UserInfo {
	if a.User == nil {
		return authenticationv1.UserInfo{}
	}
	u := authenticationv1.UserInfo{Username: a.User.Name, UID: a.User.UID, Groups: a.User.Groups}
	if len(a.User.Extra) > 0 {
		u.Extra = map[string]authenticationv1.ExtraValue{}
		for k, v := range a.User.Extra {
			u.Extra[k] = v
		}
	}
	return u
}

// response is what kube reads of a webhook's answer
// (VerifyAdmissionResponse).
type response struct {
	allowed          bool
	patch            []byte
	result           *metav1.Status
	warnings         []string
	auditAnnotations map[string]string
}

// readResponse decodes and checks a webhook's AdmissionReview as kube's
// VerifyAdmissionResponse does: for v1 the uid, apiVersion and kind must
// be the request's, and a patch comes with patchType JSONPatch (mutating
// webhooks only); v1beta1 is not checked, and its patch is a JSON patch.
func readResponse(body []byte, version string, uid types.UID, mutating bool) (*response, error) {
	var r admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	if r.Response == nil {
		return nil, errors.New("webhook response was absent")
	}
	out := &response{allowed: r.Response.Allowed, result: r.Response.Result, warnings: r.Response.Warnings,
		auditAnnotations: r.Response.AuditAnnotations}
	if version == reviewV1beta1 {
		if mutating {
			out.patch = r.Response.Patch
		}
		return out, nil
	}
	if r.Response.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.Response.UID)
	}
	if got := r.APIVersion + ", Kind=" + r.Kind; r.APIVersion != "admission.k8s.io/v1" || r.Kind != "AdmissionReview" {
		return nil, fmt.Errorf("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s", got)
	}
	if err := checkPatch(r.Response, mutating); err != nil {
		return nil, err
	}
	out.patch = r.Response.Patch
	return out, nil
}

// checkPatch is VerifyAdmissionResponse's check of patch and patchType.
func checkPatch(r *admissionv1.AdmissionResponse, mutating bool) error {
	switch {
	case !mutating && len(r.Patch) > 0:
		return errors.New("validating webhook may not return response.patch")
	case !mutating && r.PatchType != nil:
		return errors.New("validating webhook may not return response.patchType")
	case len(r.Patch) > 0 && r.PatchType == nil:
		return errors.New("webhook returned response.patch but not response.patchType")
	case len(r.Patch) == 0 && r.PatchType != nil:
		return errors.New("webhook returned response.patchType but not response.patch")
	case r.PatchType != nil && *r.PatchType == "":
		return fmt.Errorf("webhook returned invalid response.patchType of %q", "")
	case r.PatchType != nil && *r.PatchType != admissionv1.PatchTypeJSONPatch:
		return fmt.Errorf("unsupported patch type %q", *r.PatchType)
	}
	return nil
}
