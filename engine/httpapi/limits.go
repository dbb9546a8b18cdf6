package httpapi

import (
	"context"
	"io"
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

// withTimeout bounds a request that is not a watch by the request
// timeout; the handler's storage calls end with the context, and
// writeError answers 504.
func (s *Server) withTimeout(next http.Handler) http.Handler {
	if s.requestTimeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requestInfoFrom(r).Verb == "watch" {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.requestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// boundBody makes the body of a request arrive within the request
// timeout (the request could not finish in time otherwise): a read
// deadline on the connection ends a body that trickles, which the
// request's context would not, as a read blocked on the socket does not
// watch it. It runs before anything reads the body (audit does).
func (s *Server) boundBody(next http.Handler) http.Handler {
	if s.requestTimeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody && requestInfoFrom(r).Verb != "watch" {
			r.Body = deadlineBody(w, r.Body, time.Now().Add(s.requestTimeout))
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody sets a read deadline for body on w's connection, and lifts
// it once the body is read to its end or closed: net/http reads on from
// the connection in the background while the handler runs (to see a
// client go away), and a deadline left behind would end a request that is
// merely slow to answer. A connection that does not support deadlines
// (a test recorder) is left as it is.
func deadlineBody(w http.ResponseWriter, body io.ReadCloser, deadline time.Time) io.ReadCloser {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(deadline) != nil {
		return body
	}
	return &liftingBody{ReadCloser: body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
}

// liftingBody calls lift once, at the end of the body or when closed.
type liftingBody struct {
	io.ReadCloser
	lift func()
	once sync.Once
}

func (b *liftingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.lift)
	}
	return n, err
}

func (b *liftingBody) Close() error {
	b.once.Do(b.lift)
	return b.ReadCloser.Close()
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
