package webhook

import (
	"container/list"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// maxTransports is how many transports a Client keeps, kube's
// defaultCacheSize for its webhook clients.
const maxTransports = 200

// transportKey names a transport: what makes two transports differ.
type transportKey struct {
	caBundle   [sha256.Size]byte // the sum of the CA bundle, TrimSpace'd
	serverName string            // "" for a URL: the URL's host is verified
	service    serviceKey        // the service dialed through the resolver, zero for a URL
	http2      bool              // may negotiate HTTP/2 (a loopback URL)
}

// serviceKey is a service reference, without its port and path.
type serviceKey struct{ namespace, name string }

// transports is an LRU cache of transports, safe for concurrent use.
type transports struct {
	resolver *ServiceResolver
	mu       sync.Mutex
	order    *list.List // of *entry, most recently used first
	byKey    map[transportKey]*list.Element
}

// entry is one cached transport.
type entry struct {
	key transportKey
	rt  *http.Transport
}

// newTransports returns an empty cache that dials services through r.
func newTransports(r *ServiceResolver) *transports {
	return &transports{resolver: r, order: list.New(), byKey: map[transportKey]*list.Element{}}
}

// get returns the transport for key, building it (with the parsed pool)
// on first use. The least recently used one beyond maxTransports is
// dropped and its idle connections closed; calls in flight on it finish.
func (ts *transports) get(key transportKey, bundle []byte) (*http.Transport, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if el, ok := ts.byKey[key]; ok {
		ts.order.MoveToFront(el)
		return el.Value.(*entry).rt, nil
	}
	rt, err := ts.build(key, bundle)
	if err != nil {
		return nil, err
	}
	ts.byKey[key] = ts.order.PushFront(&entry{key: key, rt: rt})
	if ts.order.Len() > maxTransports {
		oldest := ts.order.Back()
		ts.order.Remove(oldest)
		delete(ts.byKey, oldest.Value.(*entry).key)
		oldest.Value.(*entry).rt.CloseIdleConnections()
	}
	return rt, nil
}

// build makes a transport for key. Parsing the bundle here, once per
// transport, is what keeps PEM parsing off the call path.
func (ts *transports) build(key transportKey, bundle []byte) (*http.Transport, error) {
	pool, err := certPool(bundle)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{RootCAs: pool, ServerName: key.serverName, MinVersion: tls.VersionTLS12}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	rt := &http.Transport{
		// kube's webhook clients honour HTTPS_PROXY and NO_PROXY.
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialer.DialContext,
		TLSClientConfig:     cfg,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   key.http2,
	}
	if !key.http2 {
		// HTTP/1.1 only, as kube: concurrent calls then open several
		// connections, which a load balancer spreads over its backends.
		cfg.NextProtos = []string{"http/1.1"}
		rt.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	if key.service != (serviceKey{}) {
		rt.DialContext = ts.serviceDialer(key.service, dialer)
	}
	return rt, nil
}

// serviceDialer dials name.namespace.svc:port at the address the resolver
// gives for the service; any other address (a proxy's) as it is. The URL
// keeps the service's name, so that Host, the TLS server name and kube's
// error text ("Post "https://name.namespace.svc:443/…": dial tcp
// 127.0.0.1:9443: …") all say name.namespace.svc.
func (ts *transports) serviceDialer(svc serviceKey, d *net.Dialer) func(context.Context, string, string) (net.Conn, error) {
	suffix := svc.name + "." + svc.namespace + ".svc"
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil || host != suffix {
			return d.DialContext(ctx, network, addr)
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return d.DialContext(ctx, network, addr)
		}
		resolved, err := ts.resolver.Resolve(svc.namespace, svc.name, int32(p))
		if err != nil {
			return nil, err
		}
		return d.DialContext(ctx, network, resolved)
	}
}
