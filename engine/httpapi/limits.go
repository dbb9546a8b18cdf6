package httpapi

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/connlimit"
)

// errTooMany is kube-apiserver's answer when too many requests are in
// flight; client-go waits Retry-After and retries.
var errTooMany = &engine.Error{Code: engine.CodeTooManyRequests, RetryAfterSeconds: 1,
	Message: "Too many requests, please try again later."}

// inflight bounds the requests of one kind (mutating or not) served at
// once, as kube-apiserver's --max-requests-inflight, and what one user
// may hold of them: half, so that a client flooding the server leaves the
// other half to everyone else. A request over either bound is refused at
// once with 429 rather than queued: a client that retries after
// Retry-After is the queue.
type inflight struct {
	slots   chan struct{}
	perUser int

	mu     sync.Mutex
	byUser map[string]int
}

func newInflight(limit int) *inflight {
	if limit <= 0 {
		return nil
	}
	return &inflight{slots: make(chan struct{}, limit), perUser: max(1, limit/2), byUser: map[string]int{}}
}

// acquire takes a slot for user; release gives it back.
func (l *inflight) acquire(user string) (release func(), ok bool) {
	l.mu.Lock()
	if l.byUser[user] >= l.perUser {
		l.mu.Unlock()
		return nil, false
	}
	l.byUser[user]++
	l.mu.Unlock()
	select {
	case l.slots <- struct{}{}:
		return func() { <-l.slots; l.done(user) }, true
	default:
		l.done(user)
		return nil, false
	}
}

func (l *inflight) done(user string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byUser[user]--; l.byUser[user] <= 0 {
		delete(l.byUser, user)
	}
}

// errTimeout is kube-apiserver's answer to a request that outlived
// --request-timeout.
var errTimeout = &engine.Error{Code: engine.CodeTimeout, RetryAfterSeconds: 1,
	Message: "Timeout: request did not complete within the allotted timeout"}

// timeoutWriteGrace is how long after the request timeout the answer may
// still take to reach the client: time to write the 504.
const timeoutWriteGrace = 2 * time.Second

// withTimeout bounds a request that is not a watch by the request
// timeout, or by its timeout parameter when shorter; the handler's storage calls end with the context, and
// writeError answers 504. Reading the body ends then too: a client that
// never sends the body it announced would otherwise keep its in-flight
// slot for as long as it likes. So does writing, shortly after: a client
// that never reads a list would otherwise keep the handler, its buffers
// and its in-flight slot (the list itself holds no database connection
// while it waits: see postgres.List).
func (s *Server) withTimeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requestInfoFrom(r).Verb == "watch" {
			next.ServeHTTP(w, r)
			return
		}
		timeout, err := requestTimeout(r, s.requestTimeout)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if timeout <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		deadline, _ := ctx.Deadline()
		// ErrNotSupported only for a ResponseWriter that is not net/http's:
		// nothing reads a body from the network then.
		rc := http.NewResponseController(w)
		if r.Body != http.NoBody {
			// Only while there is a body to read: for a request without
			// one, net/http already reads the connection in the
			// background, and a deadline passed there cancels the
			// connection's context, failing every later request on it.
			// (Reaching the body's end starts that read, which clears
			// the deadline.)
			_ = rc.SetReadDeadline(deadline)
		}
		_ = rc.SetWriteDeadline(deadline.Add(timeoutWriteGrace))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// requestTimeout is the bound of a request that is not a watch, as
// kube-apiserver's WithRequestDeadline sets it: the server's (0: none),
// or the timeout parameter (a Go duration) when it is positive and
// shorter. Errors: BadRequest, with kube-apiserver's message, for a
// timeout that is not a duration; kube-apiserver refuses it too.
func requestTimeout(r *http.Request, server time.Duration) (time.Duration, error) {
	v := requestInfoFrom(r).Query.Get("timeout")
	if v == "" {
		return server, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, engine.Errorf(engine.CodeBadRequest, "invalid timeout specified in the request URL - %v", err)
	}
	if d > 0 && (server <= 0 || d < server) {
		return d, nil
	}
	return server, nil
}

// limit holds requests to the in-flight limits. Watches (long-running),
// the health endpoints and system:masters are exempt, as in kube. A
// request on a connection over the open-connection limit (a reserve one,
// see connlimit) is served only if it is a health check, and its
// connection is closed after the answer to give its place back.
func (s *Server) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if connlimit.Reserved(r.Context()) {
			w.Header().Set("Connection", "close")
			if !openPath(r.URL.Path) {
				// A read deadline now: net/http would otherwise read up
				// to 256 kB of the unread body before closing, holding the
				// reserve place for as long as the client trickles it.
				_ = http.NewResponseController(w).SetReadDeadline(time.Now())
				s.writeError(w, r, errTooMany)
				return
			}
		}
		info := requestInfoFrom(r)
		l := s.readOnly
		switch info.Verb {
		case "watch":
			l = nil
		case "create", "update", "patch", "delete", "deletecollection", "post", "put":
			l = s.mutating
		}
		u, _ := engine.UserFrom(r.Context())
		if l == nil || openPath(r.URL.Path) || (u != nil && u.InGroup(engine.GroupMasters)) {
			next.ServeHTTP(w, r)
			return
		}
		name := ""
		if u != nil {
			name = u.Name
		}
		release, ok := l.acquire(name)
		if !ok {
			s.writeError(w, r, errTooMany)
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}
