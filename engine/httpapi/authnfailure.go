package httpapi

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/dynapi/dynapi/engine/audit"
)

// refuseUnauthenticated answers 401 to a request whose credentials are
// missing or wrong, and leaves a trace of it: an audit event, and a line
// in the server's log.
func (s *Server) refuseUnauthenticated(w http.ResponseWriter, r *http.Request, err error) {
	attempted := attemptedMethods(r)
	s.logUnauthenticated(r, attempted, err)
	s.auditUnauthenticated(w, r, attempted)
	s.writeError(w, r, errUnauthorized)
}

// auditUnauthenticated records a refused login as kube-apiserver's
// WithFailedAuthenticationAudit does: the policy is evaluated with no user
// (rules that name users or groups pass it by), and one event is written,
// at ResponseStarted, with code 401 and the credentials attempted as the
// message. The audit stage, which runs after authentication, never sees it.
func (s *Server) auditUnauthenticated(w http.ResponseWriter, r *http.Request, attempted []string) {
	if s.auditor == nil {
		return
	}
	a := attributesOf(r)
	level, omit := s.auditor.Evaluate(&a)
	if level == audit.LevelNone {
		return
	}
	ev := newEvent(r, &a, level)
	w.Header().Set("Audit-Id", ev.AuditID)
	ev.ResponseStatus = &audit.ResponseStatus{Code: http.StatusUnauthorized, Message: authFailedMessage(attempted)}
	s.writeAudit(ev, audit.StageResponseStarted, omit)
}

// authFailedMessage is kube's message for a refused login in the audit log.
func authFailedMessage(attempted []string) string {
	if len(attempted) == 0 {
		return "Authentication failed, no credentials provided"
	}
	return "Authentication failed, attempted: " + strings.Join(attempted, ", ")
}

// attemptedMethods names the credentials a request carries, as kube's
// getAuthMethods does: basic, bearer, access_token, x509.
func attemptedMethods(r *http.Request) []string {
	var methods []string
	if _, _, ok := r.BasicAuth(); ok {
		methods = append(methods, "basic")
	}
	if scheme, _, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " "); ok && strings.EqualFold(scheme, "bearer") {
		methods = append(methods, "bearer")
	}
	if strings.TrimSpace(requestInfoFrom(r).Query.Get("access_token")) != "" {
		methods = append(methods, "access_token")
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		methods = append(methods, "x509")
	}
	return methods
}

// logUnauthenticated logs a refused login at Info: who tried (the client
// address), with what, and why it failed (never the credentials). The
// lines are rate-limited: a client trying passwords as fast as it can
// would otherwise write a line per try, filling the disk and drowning
// everything else, and make the server pay for each line; the lines
// left out are counted in the next one written, so the log still tells
// how many there were.
func (s *Server) logUnauthenticated(r *http.Request, attempted []string, err error) {
	suppressed, ok := s.authnFailures.allow(time.Now())
	if !ok {
		return
	}
	reason := "no credentials"
	if err != nil {
		reason = strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	client := r.RemoteAddr
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		client = host
	}
	s.logger.Info("authentication failed", "client", client, "attempted", strings.Join(attempted, ","),
		"reason", reason, "method", r.Method, "path", r.URL.Path, "userAgent", r.UserAgent(), "suppressed", suppressed)
}

// Bounds of the failed-login log: a burst of logFailureBurst lines, then
// one every logFailureEvery.
const (
	logFailureBurst = 10
	logFailureEvery = time.Second
)

// logLimiter is a token bucket for log lines, one for all clients: a
// bucket per client address would need a map an attacker with many
// addresses could grow, and the count of suppressed lines keeps the
// total honest.
type logLimiter struct {
	mu         sync.Mutex
	tokens     float64
	last       time.Time
	suppressed int
}

// allow reports whether a line may be written at now and, when it may,
// how many were left out since the last one written.
func (l *logLimiter) allow(now time.Time) (suppressed int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last.IsZero() {
		l.tokens = logFailureBurst
	} else {
		l.tokens = min(logFailureBurst, l.tokens+float64(now.Sub(l.last))/float64(logFailureEvery))
	}
	l.last = now
	if l.tokens < 1 {
		l.suppressed++
		return 0, false
	}
	l.tokens--
	suppressed, l.suppressed = l.suppressed, 0
	return suppressed, true
}
