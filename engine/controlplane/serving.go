package controlplane

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
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

// ShutdownTimeout bounds how long the requests in flight may finish on
// Close.
const ShutdownTimeout = 10 * time.Second

// Serving is where and how a control plane listens.
type Serving struct {
	// Listen is the address to listen on ("127.0.0.1:0": a free port).
	Listen string
	// MaxOpenConnections bounds the connections served at once (0: no
	// bound), and FirstRequestTimeout a connection's time from accept to
	// its first request's headers (0: no bound); see Listen.
	MaxOpenConnections  int
	FirstRequestTimeout time.Duration
	// TLS, when set, serves HTTPS (HTTP/2 too) with its certificate;
	// nil: plain HTTP.
	TLS *tls.Config
}

// serving is a listener being served.
type serving struct {
	http     *http.Server
	listener net.Listener
	served   chan error // Serve's answer, once it returns
}

// serve listens on cfg.Serving and serves API; nothing without Serving.
// The connection limit counts connections not yet authenticated apart
// when HTTP has an Authenticator. Errors: Listen's.
func (c *ControlPlane) serve(cfg Config) error {
	if cfg.Serving == nil {
		return nil
	}
	opts := cfg.Serving
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	s := &serving{listener: Listen(ln, opts.MaxOpenConnections, opts.FirstRequestTimeout, cfg.HTTP.Authenticator != nil),
		http: NewHTTPServer(c.API), served: make(chan error, 1)}
	s.http.TLSConfig = opts.TLS
	scheme := "http"
	if opts.TLS != nil {
		scheme = "https"
	}
	go func() {
		if opts.TLS != nil {
			s.served <- s.http.ServeTLS(s.listener, "", "") // the certificate from TLSConfig
		} else {
			s.served <- s.http.Serve(s.listener)
		}
	}()
	c.serving = s
	cfg.Logger.Info("serving", "url", scheme+"://"+ln.Addr().String(), "maxOpenConnections", opts.MaxOpenConnections)
	return nil
}

// Addr is the address the control plane listens on (useful with port
// 0); "" without Config.Serving.
func (c *ControlPlane) Addr() string {
	if c.serving == nil {
		return ""
	}
	return c.serving.listener.Addr().String()
}

// close shuts the server down, letting the requests in flight finish, and
// returns what Serve returned (http.ErrServerClosed once shut down);
// nothing when s is nil.
func (s *serving) close() error {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if served := <-s.served; !errors.Is(served, http.ErrServerClosed) {
		return errors.Join(err, served)
	}
	return err
}
