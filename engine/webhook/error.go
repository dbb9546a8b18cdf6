package webhook

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/dynapi/dynapi/engine"
)

// ErrCallingWebhook is a failure to talk to a webhook (not the webhook
// refusing a request), as kube's webhook.ErrCallingWebhook: its Error is
// kube's text, `failed calling webhook "name": failed to call webhook:
// Post "https://…": dial tcp …: connect: connection refused`.
type ErrCallingWebhook struct {
	WebhookName string
	// Reason is kube's reason: "failed to call webhook: " and Err.
	Reason error
	// Err is the bare failure, `Post "https://…": …`: what kube's
	// conversion webhook quotes (`conversion webhook for … failed: …`).
	Err error
	// Status is what to answer the client that caused the call, as kube's
	// admission webhooks do: the webhook's own Status when it answered with
	// one, a generic one for its HTTP status code, else ServiceUnavailable
	// "error calling webhook".
	Status *engine.Error
	// Code is the webhook's HTTP status code, 0 when no response came.
	Code int
}

// Error is kube's text for a failed webhook call.
func (e *ErrCallingWebhook) Error() string {
	if e.Reason != nil {
		return fmt.Sprintf("failed calling webhook %q: %v", e.WebhookName, e.Reason)
	}
	return fmt.Sprintf("failed calling webhook %q; no further details available", e.WebhookName)
}

// Unwrap returns Reason, so that errors.Is sees context.DeadlineExceeded
// and x509 errors through it.
func (e *ErrCallingWebhook) Unwrap() error { return e.Reason }

// callError builds the ErrCallingWebhook for a call that failed with err
// (a *url.Error, or a status error), with the Status kube answers.
func callError(name string, err error, status *engine.Error, code int) *ErrCallingWebhook {
	if status == nil {
		status = engine.Errorf(engine.CodeUnavailable, "error calling webhook")
	}
	return &ErrCallingWebhook{WebhookName: name, Err: err, Status: status, Code: code,
		Reason: fmt.Errorf("failed to call webhook: %w", err)}
}

// statusOf reads a non-2xx response as client-go does: a Status object in
// the body is the error; otherwise a generic error for the status code,
// quoting a text body (apimachinery's NewGenericServerResponse).
func statusOf(code int, contentType string, body []byte) *engine.Error {
	if s := decodeStatus(body); s != nil {
		return s
	}
	message := "unknown"
	if media, _, err := mime.ParseMediaType(contentType); err == nil && strings.HasPrefix(media, "text/") {
		message = strings.TrimSpace(string(truncate(body, maxUnstructuredBody)))
	}
	return genericStatus(code, message)
}

// maxUnstructuredBody is how much of a body that is not a Status client-go
// quotes in an error.
const maxUnstructuredBody = 2048

// truncate cuts b to at most n bytes.
func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// wireStatus is the part of a metav1.Status read from a webhook.
type wireStatus struct {
	Kind    string `json:"kind"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Code    int    `json:"code"`
}

// decodeStatus returns the body's Status as an error, nil when the body is
// not a failure Status.
func decodeStatus(body []byte) *engine.Error {
	var s wireStatus
	if json.Unmarshal(body, &s) != nil || s.Kind != "Status" || s.Status == "Success" {
		return nil
	}
	return &engine.Error{Code: codeOf(s.Reason, s.Code), Message: s.Message}
}

// codeOf is the engine code for a Status' reason, or, for a reason dynapi
// has no code for, for its HTTP code (engine.Error carries no other).
func codeOf(reason string, httpCode int) engine.Code {
	switch c := engine.Code(reason); c {
	case engine.CodeBadRequest, engine.CodeNotFound, engine.CodeAlreadyExists, engine.CodeConflict,
		engine.CodeInvalid, engine.CodeGone, engine.CodeExpired, engine.CodeMethodNotAllowed,
		engine.CodeUnsupportedMediaType, engine.CodeNotAcceptable, engine.CodeRequestEntityTooLarge,
		engine.CodeForbidden, engine.CodeUnauthorized, engine.CodeTimeout, engine.CodeTooManyRequests,
		engine.CodeUnavailable, engine.CodeInternal:
		return c
	}
	if httpCode >= 400 && httpCode < 500 {
		return engine.CodeBadRequest
	}
	return engine.CodeInternal
}

// genericStatus is apimachinery's NewGenericServerResponse for a POST with
// no resource: kube's words for each status code.
func genericStatus(code int, serverMessage string) *engine.Error {
	switch code {
	case http.StatusConflict:
		return engine.Errorf(engine.CodeAlreadyExists, "the server reported a conflict")
	case http.StatusNotFound:
		return engine.Errorf(engine.CodeNotFound, "the server could not find the requested resource")
	case http.StatusBadRequest:
		return engine.Errorf(engine.CodeBadRequest, "the server rejected our request for an unknown reason")
	case http.StatusUnauthorized:
		return engine.Errorf(engine.CodeUnauthorized, "the server has asked for the client to provide credentials")
	case http.StatusForbidden:
		return engine.Errorf(engine.CodeForbidden, "%s", serverMessage)
	case http.StatusNotAcceptable:
		if serverMessage == "" || serverMessage == "unknown" {
			serverMessage = "the server was unable to respond with a content type that the client supports"
		}
		return engine.Errorf(engine.CodeNotAcceptable, "%s", serverMessage)
	case http.StatusUnsupportedMediaType:
		return engine.Errorf(engine.CodeUnsupportedMediaType, "%s", serverMessage)
	case http.StatusMethodNotAllowed:
		return engine.Errorf(engine.CodeMethodNotAllowed, "the server does not allow this method on the requested resource")
	case http.StatusUnprocessableEntity:
		return engine.Errorf(engine.CodeInvalid, "the server rejected our request due to an error in our request")
	case http.StatusServiceUnavailable:
		return engine.Errorf(engine.CodeUnavailable, "the server is currently unable to handle the request")
	case http.StatusGatewayTimeout:
		return engine.Errorf(engine.CodeTimeout, "the server was unable to return a response in the time allotted, but may still be processing the request")
	case http.StatusTooManyRequests:
		return engine.Errorf(engine.CodeTooManyRequests, "the server has received too many requests and has asked us to try again later")
	}
	if code >= 500 {
		return engine.Errorf(engine.CodeInternal, "an error on the server (%q) has prevented the request from succeeding", serverMessage)
	}
	return &engine.Error{Code: codeOf("", code),
		Message: fmt.Sprintf("the server responded with the status code %d but did not return more information", code)}
}
