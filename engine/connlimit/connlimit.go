// Package connlimit bounds the connections a server holds open, so that a
// flood of connections (each a file descriptor, each idle or trickling
// its request) cannot take the descriptors the server needs for its
// database and its health checks.
//
// Up to Limit connections are served as usual. The next Reserve ones are
// accepted but marked: Reserved reports it for their requests, which the
// HTTP layer answers 429 with Retry-After, except the health endpoints,
// and closes after one answer, so that a prober still gets through at the
// cap and a client learns why it is refused. Beyond Limit+Reserve a
// connection is closed as soon as it is accepted: answering it would mean
// reading a request whose pace the client controls.
package connlimit

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
)

// Listener is a net.Listener that holds its connections to a limit.
type Listener struct {
	net.Listener
	limit, reserve int64
	open           atomic.Int64
}

// NewListener bounds ln to limit connections, plus reserve for health
// checks. A limit of 0 or less accepts everything.
func NewListener(ln net.Listener, limit, reserve int) *Listener {
	return &Listener{Listener: ln, limit: int64(limit), reserve: int64(max(reserve, 0))}
}

// Accept returns the next connection the limit lets in; it closes those
// beyond Limit+Reserve as they come.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		n := l.open.Add(1)
		if l.limit <= 0 || n <= l.limit {
			return &conn{Conn: c, l: l}, nil
		}
		if n <= l.limit+l.reserve {
			return &conn{Conn: c, l: l, reserved: true}, nil
		}
		l.open.Add(-1)
		_ = c.Close()
	}
}

// conn gives its place back when closed, once.
type conn struct {
	net.Conn
	l        *Listener
	reserved bool
	once     sync.Once
}

func (c *conn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

// reservedKey is the context key of a request on a reserve connection.
type reservedKey struct{}

// ConnContext is an http.Server's ConnContext: it marks the requests of a
// reserve connection (over TLS too) for Reserved.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if lc, ok := c.(*conn); ok && lc.reserved {
		return context.WithValue(ctx, reservedKey{}, true)
	}
	return ctx
}

// Reserved reports whether the request of ctx came on a reserve
// connection: one over the limit, to be served only if it is a health
// check.
func Reserved(ctx context.Context) bool {
	v, _ := ctx.Value(reservedKey{}).(bool)
	return v
}
