package admissionwebhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/admission"
	"github.com/dynapi/dynapi/engine/webhook"
)

// errRejected is a webhook's denial (kube's ErrWebhookRejection): the
// answer, not subject to the failure policy.
type errRejected struct{ status *engine.Error }

func (e *errRejected) Error() string { return e.status.Message }

// call sends va (the request in the invocation's version) to the
// webhook h and returns its checked response. Errors: kube's
// dry-run refusal (BadRequest, not subject to the failure policy), an
// *webhook.ErrCallingWebhook for a call or response that failed, an
// *errRejected for a denial.
func call(ctx context.Context, client *webhook.Client, h *hook, orig, va *admission.Attributes) (*response, error) {
	if va.DryRun && !noSideEffects(h.SideEffects) {
		if h.SideEffects == nil {
			return nil, &webhook.ErrCallingWebhook{WebhookName: h.Name, Reason: errors.New("Webhook SideEffects is nil"), //nolint:staticcheck // kube's words
				Status: engine.Errorf(engine.CodeBadRequest, "Webhook SideEffects is nil")}
		}
		return nil, engine.Errorf(engine.CodeBadRequest, "admission webhook %q does not support dry run", h.Name)
	}
	version, err := reviewVersion(h)
	if err != nil {
		return nil, badAdmissionObjects(h, err)
	}
	body, uid, err := newReview(version, orig, va)
	if err != nil {
		return nil, badAdmissionObjects(h, err)
	}
	out, err := client.Call(ctx, webhook.Request{Name: h.Name, Type: h.callType(), Config: h.client, Body: body, Timeout: h.timeout})
	if err != nil {
		return nil, err
	}
	r, err := readResponse(out, version, uid, h.mutating)
	if err != nil {
		return nil, &webhook.ErrCallingWebhook{WebhookName: h.Name, Reason: fmt.Errorf("received invalid webhook response: %w", err),
			Err: err, Status: engine.Errorf(engine.CodeUnavailable, "error validating webhook response")}
	}
	if !r.allowed {
		return r, &errRejected{status: denial(h.Name, r.result)}
	}
	return r, nil
}

// noSideEffects says a webhook may be called on a dry run.
func noSideEffects(s *admissionregistrationv1.SideEffectClass) bool {
	return s != nil && (*s == admissionregistrationv1.SideEffectClassNone || *s == admissionregistrationv1.SideEffectClassNoneOnDryRun)
}

func badAdmissionObjects(h *hook, err error) error {
	return &webhook.ErrCallingWebhook{WebhookName: h.Name, Reason: fmt.Errorf("could not create admission objects: %w", err),
		Err: err, Status: engine.Errorf(engine.CodeBadRequest, "error creating admission objects")}
}

// denial is kube's ToStatusErr: `admission webhook "name" denied the
// request: <message>` (or its reason, or "without explanation"), with the
// webhook's code when it is an error code, else 400.
func denial(name string, result *metav1.Status) *engine.Error {
	deniedBy := fmt.Sprintf("admission webhook %q denied the request", name)
	if result == nil {
		result = &metav1.Status{}
	}
	msg := deniedBy + " without explanation"
	switch {
	case result.Message != "":
		msg = deniedBy + ": " + result.Message
	case result.Reason != "":
		msg = deniedBy + ": " + string(result.Reason)
	}
	return &engine.Error{Code: codeFor(result), Message: msg}
}

// codeFor is the engine code of a denial's Status: its reason when dynapi
// has that code, else its HTTP code's, 400 below 400.
func codeFor(s *metav1.Status) engine.Code {
	if c := engine.Code(s.Reason); c != "" && c != engine.CodeInternal && httpCodes[c] != 0 {
		return c
	}
	for c, code := range httpCodes {
		if int(s.Code) == code {
			return c
		}
	}
	if s.Code >= 500 {
		return engine.CodeInternal
	}
	return engine.CodeBadRequest
}

// httpCodes are the HTTP codes of the engine codes a denial may carry.
var httpCodes = map[engine.Code]int{
	engine.CodeBadRequest: http.StatusBadRequest, engine.CodeUnauthorized: http.StatusUnauthorized,
	engine.CodeForbidden: http.StatusForbidden, engine.CodeNotFound: http.StatusNotFound,
	engine.CodeMethodNotAllowed: http.StatusMethodNotAllowed, engine.CodeConflict: http.StatusConflict,
	engine.CodeGone: http.StatusGone, engine.CodeInvalid: http.StatusUnprocessableEntity,
	engine.CodeTooManyRequests: http.StatusTooManyRequests, engine.CodeInternal: http.StatusInternalServerError,
	engine.CodeUnavailable: http.StatusServiceUnavailable, engine.CodeTimeout: http.StatusGatewayTimeout,
}

// failure is what a failed webhook h answers: nothing under failurePolicy
// Ignore (fail open, annotated as kube annotates it), else kube's
// "Internal error occurred: failed calling webhook …"; a denial and
// other errors are the answer as they are.
func failure(ctx context.Context, h *hook, err error, failedOpen func()) error {
	var callErr *webhook.ErrCallingWebhook
	var rejected *errRejected
	switch {
	case errors.As(err, &rejected):
		return rejected.status
	case !errors.As(err, &callErr):
		return err
	case h.failOpen():
		if !errors.Is(err, context.Canceled) {
			failedOpen()
		}
		if ctx.Err() != nil {
			return engine.Errorf(engine.CodeTimeout, "Timeout: request did not complete within requested timeout")
		}
		return nil
	}
	return internal(callErr)
}
