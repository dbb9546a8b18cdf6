package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/audit"
	"github.com/dynapi/dynapi/engine/authz"
	"github.com/dynapi/dynapi/engine/kubeproto"
)

// Auditor decides what of a request is recorded and records it (see
// package audit; *audit.Log is one).
type Auditor interface {
	Evaluate(a *authz.Attributes) (audit.Level, []audit.Stage)
	Write(ev *audit.Event, omit []audit.Stage) error
}

// maxAuditedResponse bounds the response body kept for a
// RequestResponse event; a longer one (a big list, a watch) is left out.
const maxAuditedResponse = maxBodyBytes

// audit records the request at the level the policy gives it: after
// authentication (the user is known), before authorization (a refusal is
// recorded too), as in kube-apiserver. A Secret's bodies are recorded
// only at RequestResponse.
func (s *Server) audit(next http.Handler) http.Handler {
	if s.auditor == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := attributesOf(r)
		if a.User == nil { // no authentication configured
			a.User = anonymousUser
		}
		level, omit := s.auditor.Evaluate(&a)
		if level == audit.LevelNone {
			next.ServeHTTP(w, r)
			return
		}
		ev := newEvent(r, &a, level)
		w.Header().Set("Audit-Id", ev.AuditID)
		bodies := level.AtLeast(audit.LevelRequestResponse) || (level.AtLeast(audit.LevelRequest) && !isSecret(&a))
		// The request's body is recorded by the handler once decoded
		// (auditBody), as kube's handlers call LogRequestObject: the
		// RequestReceived stage has none.
		r = r.WithContext(context.WithValue(r.Context(), auditKey{}, &auditRecord{ev: ev, bodies: bodies && level.AtLeast(audit.LevelRequest)}))
		s.writeAudit(ev, audit.StageRequestReceived, omit)
		ctx, annotations := engine.WithAuditAnnotations(r.Context())
		r = r.WithContext(ctx)
		rec := &auditRecorder{ResponseWriter: w, keep: level.AtLeast(audit.LevelRequestResponse) && bodies}
		if a.Verb == "watch" {
			rec.started = func() { s.writeAudit(ev, audit.StageResponseStarted, omit) }
		}
		defer func() {
			// A panic is recorded, then passed on to recoverPanics.
			if p := recover(); p != nil {
				ev.ResponseStatus = &audit.ResponseStatus{Code: http.StatusInternalServerError}
				s.writeAudit(ev, audit.StagePanic, omit)
				panic(p)
			}
		}()
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), auditEventKey{}, ev)))
		ev.Annotations = annotations.CopyInto(ev.Annotations)
		ev.ResponseStatus = rec.status()
		if rec.keep && !rec.over {
			ev.ResponseObject = responseObject(rec.body.Bytes())
		}
		s.writeAudit(ev, audit.StageResponseComplete, omit)
	})
}

// auditEventKey is the context key of the request's *audit.Event, which
// impersonation completes with the impersonated user.
type auditEventKey struct{}

// annotateAudit adds an annotation to the request's audit event, when it
// has one: before the handler answers, so that ResponseComplete has it.
func annotateAudit(r *http.Request, key, value string) {
	ev, ok := r.Context().Value(auditEventKey{}).(*audit.Event)
	if !ok {
		return
	}
	if ev.Annotations == nil {
		ev.Annotations = map[string]string{}
	}
	ev.Annotations[key] = value
}

func (s *Server) writeAudit(ev *audit.Event, stage audit.Stage, omit []audit.Stage) {
	ev.Stage, ev.StageTimestamp = stage, audit.MicroTime(time.Now())
	if err := s.auditor.Write(ev, omit); err != nil {
		s.logger.Error("audit log", "err", err)
	}
}

func newEvent(r *http.Request, a *authz.Attributes, level audit.Level) *audit.Event {
	ev := &audit.Event{Level: level, AuditID: audit.NewID(), RequestURI: r.URL.RequestURI(), Verb: a.Verb,
		UserAgent: r.UserAgent(), RequestReceivedTimestamp: audit.MicroTime(time.Now())}
	if a.User != nil {
		ev.User = audit.UserInfo{Username: a.User.Name, UID: a.User.UID, Groups: a.User.Groups, Extra: a.User.Extra}
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		ev.SourceIPs = []string{host}
	}
	if a.ResourceRequest {
		ev.ObjectRef = &audit.ObjectRef{Resource: a.Resource, Namespace: a.Namespace, Name: a.Name,
			APIGroup: a.APIGroup, APIVersion: a.APIVersion, Subresource: a.Subresource}
	}
	return ev
}

// isSecret reports whether a request addresses Secrets, whose bodies are
// recorded only at RequestResponse.
func isSecret(a *authz.Attributes) bool {
	return a.ResourceRequest && a.APIGroup == "" && a.Resource == "secrets"
}

// auditKey is the context key of a request's *auditRecord.
type auditKey struct{}

// auditRecord is the event of an audited request, for the handler to
// complete once it has decoded the body.
type auditRecord struct {
	ev     *audit.Event
	bodies bool // the level records the request's body
}

// auditBody records body, the request's body as the handler decoded it
// into JSON (from JSON, YAML or protobuf), in the request's audit event,
// if any: the requestObject when the level records bodies, and the name
// of objectRef when the path has none (a create), from the object, as
// kube's LogRequestObject does.
func auditBody(r *http.Request, body []byte) {
	rec, ok := r.Context().Value(auditKey{}).(*auditRecord)
	if !ok || len(body) == 0 || !gjson.ValidBytes(body) { // a DeleteOptions may come as YAML
		return
	}
	if ref := rec.ev.ObjectRef; ref != nil && ref.Name == "" {
		ref.Name = gjson.GetBytes(body, "metadata.name").String()
	}
	if rec.bodies {
		rec.ev.RequestObject = body
	}
}

// responseObject is a response's body as the event records it: JSON as
// it is, protobuf as the JSON it encodes; nil for anything else.
func responseObject(body []byte) json.RawMessage {
	if kubeproto.IsProtobuf(body) {
		out, err := kubeproto.ToJSON(body)
		if err != nil {
			return nil
		}
		return out
	}
	if !gjson.ValidBytes(body) {
		return nil
	}
	return bytes.TrimSpace(body)
}

// auditRecorder keeps the status code and, when asked, the body of a
// response. It is an http.Flusher whatever it wraps, since watches stream.
type auditRecorder struct {
	http.ResponseWriter
	code    int
	keep    bool
	over    bool // the body outgrew maxAuditedResponse
	body    bytes.Buffer
	started func() // called when a watch's response starts
	failure bytes.Buffer
}

func (w *auditRecorder) WriteHeader(code int) {
	if w.code == 0 && code >= http.StatusOK {
		w.code = code
		if w.started != nil {
			w.started()
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *auditRecorder) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.code >= http.StatusBadRequest && w.failure.Len() < 64<<10 {
		w.failure.Write(b)
	}
	if w.keep && !w.over {
		if w.body.Len()+len(b) > maxAuditedResponse {
			w.over = true
			w.body = bytes.Buffer{}
		} else {
			w.body.Write(b)
		}
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what is buffered, when the wrapped writer can.
func (w *auditRecorder) Flush() {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the wrapped writer.
func (w *auditRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// status is the responseStatus of the event: the code, and the Status'
// message and reason for a failure.
func (w *auditRecorder) status() *audit.ResponseStatus {
	code := w.code
	if code == 0 {
		code = http.StatusOK
	}
	st := &audit.ResponseStatus{Code: code}
	if code >= http.StatusBadRequest {
		f := w.failure.Bytes()
		st.Status, st.Message, st.Reason = gjson.GetBytes(f, "status").String(), gjson.GetBytes(f, "message").String(), gjson.GetBytes(f, "reason").String()
	}
	return st
}
