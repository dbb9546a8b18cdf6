package connlimit

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// conn gives its place back when closed, once, and its unproven place
// when proven.
type conn struct {
	net.Conn
	l        *Listener
	from     netip.Prefix
	reserved bool

	mu      sync.Mutex
	timer   *time.Timer // the first-request deadline, nil once met
	actives int         // how often the connection went active
	proven  bool
	closed  bool
}

// Close closes the connection and gives its places back, once.
func (c *conn) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		c.stopTimer()
		if !c.proven {
			c.l.releaseUnproven(c.from)
		}
		c.l.open.Add(-1)
	}
	c.mu.Unlock()
	return c.Conn.Close()
}

// prove counts the connection as proven: no longer unproven for its
// address.
func (c *conn) prove() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proven || c.closed {
		return
	}
	c.proven = true
	c.l.releaseUnproven(c.from)
}

// active notes that the connection went active (net/http's StateActive).
// The first request has arrived when it did over HTTP/1.1, but over
// HTTP/2 only the second time: the first is the client preface, before
// any request.
func (c *conn) active(http2 bool) {
	c.mu.Lock()
	c.actives++
	arrived := c.actives == 1 && !http2 || c.actives == 2 && http2
	if arrived {
		c.stopTimer()
	}
	c.mu.Unlock()
	if arrived && !c.l.opts.Authenticating {
		c.prove()
	}
}

// stopTimer ends the first-request deadline; c.mu is held.
func (c *conn) stopTimer() {
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
}

// ownConn is the Listener's conn under c (a *tls.Conn's too), or nil.
func ownConn(c net.Conn) *conn {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	lc, _ := c.(*conn)
	return lc
}

// ConnState is an http.Server's ConnState: it lifts a connection's
// first-request deadline once its first request's headers have arrived,
// so that a long request (a watch) or a kept-alive connection is bounded
// by the server's own timeouts only.
func ConnState(c net.Conn, state http.ConnState) {
	lc := ownConn(c)
	if lc == nil || state != http.StateActive {
		return
	}
	tc, ok := c.(*tls.Conn)
	lc.active(ok && tc.ConnectionState().NegotiatedProtocol == "h2")
}

// connKey is the context key of a request's connection.
type connKey struct{}

// ConnContext is an http.Server's ConnContext: it puts the connection in
// its requests' context (over TLS too), for Reserved and Authenticated.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if lc := ownConn(c); lc != nil {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// Reserved reports whether the request of ctx came on a reserve
// connection: one over the limit, to be served only if it is a health
// check.
func Reserved(ctx context.Context) bool {
	lc, _ := ctx.Value(connKey{}).(*conn)
	return lc != nil && lc.reserved
}

// Authenticated notes that the request of ctx was authenticated: its
// connection is proven, no longer bounded by its address's share of
// unproven connections.
func Authenticated(ctx context.Context) {
	if lc, _ := ctx.Value(connKey{}).(*conn); lc != nil {
		lc.prove()
	}
}
