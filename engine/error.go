package engine

import (
	"errors"
	"fmt"
	"strings"
)

// Code classifies an Error. The HTTP layer owns the only mapping from Code to
// status code and Kubernetes reason.
type Code string

// Error codes, named after the Kubernetes StatusReason they render as.
const (
	CodeBadRequest            Code = "BadRequest"
	CodeNotFound              Code = "NotFound"
	CodeAlreadyExists         Code = "AlreadyExists"
	CodeConflict              Code = "Conflict"
	CodeInvalid               Code = "Invalid"
	CodeGone                  Code = "Gone"
	CodeExpired               Code = "Expired"
	CodeMethodNotAllowed      Code = "MethodNotAllowed"
	CodeUnsupportedMediaType  Code = "UnsupportedMediaType"
	CodeNotAcceptable         Code = "NotAcceptable"
	CodeRequestEntityTooLarge Code = "RequestEntityTooLarge"
	CodeForbidden             Code = "Forbidden"
	CodeUnauthorized          Code = "Unauthorized"
	CodeTimeout               Code = "Timeout"
	CodeTooManyRequests       Code = "TooManyRequests"
	CodeUnavailable           Code = "ServiceUnavailable"
	CodeInternal              Code = "InternalError"
	// CodeUnknown is kube's StatusReasonUnknown: a 500 with no reason, what
	// kube-apiserver answers for an error that is no API status (a failed
	// conversion webhook, as kubectl shows it: "Error from server: …").
	CodeUnknown Code = ""
)

// FieldError is one problem with one field, in the shape of a Kubernetes
// StatusCause. Path uses Kubernetes' form: "spec.replicas", "spec.ports[0].name",
// "metadata.labels[app.kubernetes.io/name]".
type FieldError struct {
	Type    string // a Kubernetes CauseType: FieldValueInvalid, FieldValueRequired, ...
	Path    string
	Message string
}

// Cause types used in FieldError.Type, as Kubernetes names them.
const (
	CauseInvalid      = "FieldValueInvalid"
	CauseRequired     = "FieldValueRequired"
	CauseNotSupported = "FieldValueNotSupported"
	CauseDuplicate    = "FieldValueDuplicate"
	CauseForbidden    = "FieldValueForbidden"
	CauseTooLong      = "FieldValueTooLong"
	CauseTypeInvalid  = "FieldValueTypeInvalid"
	CauseUnknown      = "FieldValueUnknown"
)

// Error is dynapi's one error type. Group, Kind and Name fill the Status details.
type Error struct {
	Code    Code
	Message string
	Group   string
	Kind    string // the resource (plural) for most errors, as kube-apiserver does
	Name    string
	Causes  []FieldError
	// RetryAfterSeconds, when set, is sent as Retry-After and in the Status details.
	RetryAfterSeconds int
	// Continue, when set, is a continue token to send in the Status'
	// metadata.continue: an Expired list offers one that resumes from
	// the same key at the current state, as kube-apiserver does.
	Continue string
}

func (e *Error) Error() string { return e.Message }

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the Code of the first *Error in err's chain, CodeInternal
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// NewNotFound is the Kubernetes "resource "name" not found" error.
func NewNotFound(gr GroupResource, name string) *Error {
	return &Error{Code: CodeNotFound, Group: gr.Group, Kind: gr.Resource, Name: name,
		Message: fmt.Sprintf("%s %q not found", gr, name)}
}

// NewAlreadyExists is the Kubernetes "resource "name" already exists" error.
func NewAlreadyExists(gr GroupResource, name string) *Error {
	return &Error{Code: CodeAlreadyExists, Group: gr.Group, Kind: gr.Resource, Name: name,
		Message: fmt.Sprintf("%s %q already exists", gr, name)}
}

// NewConflict is the optimistic-concurrency failure Kubernetes returns for a stale resourceVersion.
func NewConflict(gr GroupResource, name, reason string) *Error {
	return &Error{Code: CodeConflict, Group: gr.Group, Kind: gr.Resource, Name: name,
		Message: fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", gr, name, reason)}
}

// NewModified is the Conflict of a write based on a stale
// resourceVersion, in kube-apiserver's words (its registry's
// OptimisticLockErrorMsg).
func NewModified(gr GroupResource, name string) *Error {
	return NewConflict(gr, name, "the object has been modified; please apply your changes to the latest version and try again")
}

// NewInvalid is the 422 error listing every field problem. kind is the Kind
// (not the resource), as kube-apiserver reports it.
func NewInvalid(group, kind, name string, causes []FieldError) *Error {
	qualified := kind
	if group != "" {
		qualified = kind + "." + group
	}
	parts := make([]string, len(causes))
	for i, c := range causes {
		parts[i] = c.Message
		if c.Path != "" {
			parts[i] = c.Path + ": " + c.Message
		}
	}
	list := strings.Join(parts, ", ")
	if len(parts) > 1 {
		list = "[" + list + "]"
	}
	return &Error{Code: CodeInvalid, Group: group, Kind: kind, Name: name, Causes: causes,
		Message: fmt.Sprintf("%s %q is invalid: %s", qualified, name, list)}
}
