// Package connlimit bounds the connections a server holds open, so that a
// flood of connections (each a file descriptor, each idle or trickling
// its request) cannot take the descriptors the server needs for its
// database and its health checks, nor the places of the clients that
// authenticate.
//
// Up to Limit connections are served as usual. The next Reserve ones are
// accepted but marked: Reserved reports it for their requests, which the
// HTTP layer answers 429 with Retry-After, except the health endpoints,
// and closes after one answer, so that a prober still gets through at the
// cap and a client learns why it is refused. Beyond Limit+Reserve a
// connection is closed as soon as it is accepted: answering it would mean
// reading a request whose pace the client controls.
//
// A connection is unproven until a request on it is authenticated (see
// Authenticated), or, on a server that authenticates nobody, until its
// first request arrives. One client address holds at most
// Options.PerAddress unproven connections; more are closed at accept, so
// that idle sockets from one address cannot take every place while a
// client from another address, once in, authenticates and stays. And a
// connection that has not sent a first request's headers (its TLS
// handshake included) within Options.FirstRequestTimeout is closed, so
// that an idle socket gives its place back soon.
package connlimit

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Options are a Listener's bounds beyond the number of connections.
type Options struct {
	// FirstRequestTimeout closes a connection whose first request's
	// headers (after its TLS handshake) have not arrived this long after
	// it was accepted. 0: no bound.
	FirstRequestTimeout time.Duration
	// PerAddress bounds the unproven connections of one client address
	// (an IPv6 /64, what one host usually holds). 0: no bound.
	PerAddress int
	// Authenticating says that the server authenticates its clients: a
	// connection is proven by Authenticated then, and by its first
	// request otherwise.
	Authenticating bool
}

// Listener is a net.Listener that holds its connections to a limit.
type Listener struct {
	net.Listener
	limit, reserve int64
	opts           Options
	open           atomic.Int64
	mu             sync.Mutex
	unproven       map[netip.Prefix]int // by client address
}

// NewListener bounds ln to limit connections, plus reserve for health
// checks, and to opts. A limit of 0 or less accepts any number.
func NewListener(ln net.Listener, limit, reserve int, opts Options) *Listener {
	return &Listener{Listener: ln, limit: int64(limit), reserve: int64(max(reserve, 0)), opts: opts,
		unproven: make(map[netip.Prefix]int)}
}

// Accept returns the next connection the limits let in; it closes the
// others as they come.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
		_ = c.Close()
	}
}

// admit wraps c if the limits let it in, and returns nil if not.
func (l *Listener) admit(c net.Conn) *conn {
	from := addressOf(c.RemoteAddr())
	if !l.holdUnproven(from) {
		return nil
	}
	n := l.open.Add(1)
	if l.limit > 0 && n > l.limit+l.reserve {
		l.open.Add(-1)
		l.releaseUnproven(from)
		return nil
	}
	lc := &conn{Conn: c, l: l, from: from, reserved: l.limit > 0 && n > l.limit}
	if d := l.opts.FirstRequestTimeout; d > 0 {
		lc.mu.Lock()
		lc.timer = time.AfterFunc(d, func() { _ = lc.Close() })
		lc.mu.Unlock()
	}
	return lc
}

// holdUnproven counts one more unproven connection from an address, if
// the address may hold one more.
func (l *Listener) holdUnproven(from netip.Prefix) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opts.PerAddress > 0 && l.unproven[from] >= l.opts.PerAddress {
		return false
	}
	l.unproven[from]++
	return true
}

// releaseUnproven counts one unproven connection from an address less.
func (l *Listener) releaseUnproven(from netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unproven[from]--; l.unproven[from] <= 0 {
		delete(l.unproven, from)
	}
}

// addressOf is the client address that connections are counted by: an
// IPv4 address, or an IPv6 /64. Any other address (a Unix socket's) is
// the zero prefix: all of them count as one client.
func addressOf(a net.Addr) netip.Prefix {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.Prefix{}
	}
	ip := ta.AddrPort().Addr().Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p
}
