package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kubeproto"
)

// httpStatus is the one table from engine error codes to HTTP status codes.
var httpStatus = map[engine.Code]int{
	engine.CodeBadRequest:            http.StatusBadRequest,
	engine.CodeNotFound:              http.StatusNotFound,
	engine.CodeAlreadyExists:         http.StatusConflict,
	engine.CodeConflict:              http.StatusConflict,
	engine.CodeInvalid:               http.StatusUnprocessableEntity,
	engine.CodeGone:                  http.StatusGone,
	engine.CodeExpired:               http.StatusGone,
	engine.CodeMethodNotAllowed:      http.StatusMethodNotAllowed,
	engine.CodeUnsupportedMediaType:  http.StatusUnsupportedMediaType,
	engine.CodeNotAcceptable:         http.StatusNotAcceptable,
	engine.CodeRequestEntityTooLarge: http.StatusRequestEntityTooLarge,
	engine.CodeForbidden:             http.StatusForbidden,
	engine.CodeUnauthorized:          http.StatusUnauthorized,
	engine.CodeTimeout:               http.StatusGatewayTimeout,
	engine.CodeTooManyRequests:       http.StatusTooManyRequests,
	engine.CodeUnavailable:           http.StatusServiceUnavailable,
	engine.CodeInternal:              http.StatusInternalServerError,
}

// status is metav1.Status on the wire.
type status struct {
	Kind       string         `json:"kind"`
	APIVersion string         `json:"apiVersion"`
	Metadata   statusMeta     `json:"metadata"`
	Status     string         `json:"status"`
	Message    string         `json:"message,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Details    *statusDetails `json:"details,omitempty"`
	Code       int            `json:"code"`
}

// statusMeta is the ListMeta of a Status: an Expired continue carries a
// fresh continue token there, as kube-apiserver sends it.
type statusMeta struct {
	Continue string `json:"continue,omitempty"`
}

type statusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []statusCause `json:"causes,omitempty"`
	RetryAfterSeconds int           `json:"retryAfterSeconds,omitempty"`
}

type statusCause struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
}

var (
	errNotFoundPath = &engine.Error{Code: engine.CodeNotFound, Message: "the server could not find the requested resource"}
	errInternal     = &engine.Error{Code: engine.CodeInternal, Message: "Internal error occurred: internal error"}
	// errStorageDown answers a request that failed while the storage does
	// not answer: a 503 with Retry-After, which client-go retries on its
	// own, rather than a 500 it gives up on.
	errStorageDown = &engine.Error{Code: engine.CodeUnavailable, RetryAfterSeconds: 1,
		Message: "the storage is unavailable; please try again"}
)

func errMethodNotAllowed(r *http.Request) *engine.Error {
	return engine.Errorf(engine.CodeMethodNotAllowed, "the server does not allow this method on the requested resource (%s %s)", r.Method, r.URL.Path)
}

// writeError renders err as a Status. Errors that are not *engine.Error are
// logged and shown as an internal error, their text may leak internals; or
// as the storage being unavailable, when it does not answer now. A request
// whose client went away is no server error: it is logged at debug level.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *engine.Error
	if !errors.As(err, &e) {
		level := slog.LevelError
		e = errInternal
		if ctxErr := r.Context().Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			level = slog.LevelDebug
			if errors.Is(ctxErr, context.DeadlineExceeded) {
				e = errTimeout // the request timeout; a client that went away reads nothing
			}
		} else if s.storageDown(r.Context(), err) {
			e, level = errStorageDown, slog.LevelWarn // the database's fault, not a bug of the server
		}
		s.logger.Log(r.Context(), level, "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if e == errTooMany || e == errTimeout {
		requestInfoFrom(r).terminated = true // refused in self-defense
	}
	st := statusFor(e)
	if e.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
	}
	// As kube-apiserver, answer a Status in protobuf to a client that asks
	// for protobuf first, whatever the kind it asked about.
	if f, _ := negotiate(r, forStatus, statusKind); f.kind == formatProtobuf {
		writeProtobuf(w, st)
		return
	}
	writeJSON(w, st.Code, st)
}

// statusKind is the kind of an error's answer.
var statusKind = engine.GroupVersionKind{Version: "v1", Kind: "Status"}

// statusProtobuf encodes st in protobuf.
func statusProtobuf(st status) ([]byte, error) {
	body, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return kubeproto.FromJSON(body)
}

// writeProtobuf writes st as a protobuf response.
func writeProtobuf(w http.ResponseWriter, st status) {
	body, err := statusProtobuf(st)
	if err != nil {
		panic(fmt.Sprintf("encode a Status as protobuf: %v", err)) // our own wire struct: a programming error
	}
	w.Header().Set("Content-Type", kubeproto.MediaType)
	w.WriteHeader(st.Code)
	_, _ = w.Write(body)
}

func statusFor(e *engine.Error) status {
	code, ok := httpStatus[e.Code]
	if !ok {
		code = http.StatusInternalServerError
	}
	st := status{Kind: "Status", APIVersion: "v1", Status: "Failure", Message: e.Message, Reason: string(e.Code), Code: code,
		Metadata: statusMeta{Continue: e.Continue}}
	if e.Name != "" || e.Group != "" || e.Kind != "" || len(e.Causes) > 0 || e.RetryAfterSeconds > 0 {
		st.Details = &statusDetails{Name: e.Name, Group: e.Group, Kind: e.Kind, RetryAfterSeconds: e.RetryAfterSeconds}
		for _, c := range e.Causes {
			st.Details.Causes = append(st.Details.Causes, statusCause{Reason: c.Type, Message: c.Message, Field: c.Path})
		}
	}
	return st
}

// writeJSON writes v as a JSON response. Encoding our own wire structs cannot
// fail, so a failure is a programming error worth a panic.
func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode %T: %v", v, err))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
