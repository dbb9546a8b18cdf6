package controlplane

import (
	"net"
	"net/http"
	"time"

	"github.com/dynapi/dynapi/engine/connlimit"
	"github.com/dynapi/dynapi/engine/httpapi"
)

// The bounds of kube-apiserver's server (k8s.io/apiserver's
// secure_serving.go) on a connection, before and between requests. The
// body of a request is bounded by the request timeout (httpapi), a watch
// by its own timeout, and a connection count by the listener
// (connlimit).
const (
	// ReadHeaderTimeout ends a connection whose request line and headers
	// have not all arrived: "just shy of" kube's upper bound on requests.
	ReadHeaderTimeout = 32 * time.Second
	// IdleTimeout closes a kept-alive connection with no request, as
	// Go's client transport does on its side after the same time.
	IdleTimeout = 90 * time.Second
	// MaxHeaderBytes bounds the request line and headers.
	MaxHeaderBytes = 1 << 20
)

// NewHTTPServer returns the http.Server that serves api with those
// bounds: the requests of a connection over the open-connection limit
// are marked for api (see Listen), and Shutdown ends api's watches at
// once, letting the other requests in flight finish.
func NewHTTPServer(api *httpapi.Server) *http.Server {
	s := &http.Server{Handler: api, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout,
		MaxHeaderBytes: MaxHeaderBytes, ConnContext: connlimit.ConnContext, ConnState: connlimit.ConnState}
	s.RegisterOnShutdown(api.EndWatches)
	return s
}

// Listen bounds ln to maxOpen connections (0: no bound), plus
// connlimit.Reserve that only health checks are served on; one client
// address to a quarter of maxOpen connections not yet authenticated (on a
// server that authenticates, or else not yet past their first request),
// so that one address cannot fill the cap; and a connection to
// firstRequest (0: no bound) from accept to its first request's headers.
func Listen(ln net.Listener, maxOpen int, firstRequest time.Duration, authenticating bool) net.Listener {
	if maxOpen <= 0 && firstRequest <= 0 {
		return ln
	}
	opts := connlimit.Options{FirstRequestTimeout: firstRequest, Authenticating: authenticating}
	if maxOpen > 0 {
		opts.PerAddress = max(maxOpen/4, 1)
	}
	return connlimit.NewListener(ln, maxOpen, connlimit.Reserve, opts)
}
