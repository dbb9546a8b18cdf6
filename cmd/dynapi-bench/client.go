package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// requestTimeout bounds every request but watches; a list of 100k objects
// takes seconds, one of a million a minute or more on a loaded machine
// (run the servers with DYNAPI_REQUEST_TIMEOUT above a minute for it).
const requestTimeout = 10 * time.Minute

// client sends requests to one dynapi server: one at a time per
// connection, over as many kept-alive connections as there are requests
// in flight.
type client struct {
	base string       // server URL, without a trailing slash
	wire *wire        // requests
	http *http.Client // watches, which stream
	// token is the bearer token of every request ("" none).
	token string
}

func newServerClient(base, token string, transport http.RoundTripper) (client, error) {
	w, err := newWire(base, token)
	if err != nil {
		return client{}, err
	}
	return client{base: base, wire: w, http: &http.Client{Transport: transport}, token: token}, nil
}

// newTransport keeps a connection per watch open to each server.
func newTransport(clients int) *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        4 * clients,
		MaxIdleConnsPerHost: 2 * clients,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
}

// do sends a request and returns the response body; a status other than
// want is an error that quotes the body. The request ends at ctx's
// deadline, or requestTimeout.
func (c client) do(ctx context.Context, method, path, contentType string, body []byte, want int) ([]byte, error) {
	return c.doInto(ctx, method, path, contentType, body, want, nil)
}

// doInto is do, with the answer read into into's memory when it has room.
func (c client) doInto(ctx context.Context, method, path, contentType string, body []byte, want int, into []byte) ([]byte, error) {
	code, out, err := c.wire.doInto(ctx, method, path, contentType, body, into)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if code != want {
		return nil, fmt.Errorf("%s %s: %d %s: %.300s", method, path, code, http.StatusText(code), out)
	}
	return out, nil
}

// reader reads answers of GETs that must answer 200 into memory it keeps
// from one to the next: one at a time, each valid until the next.
type reader struct {
	c   client
	buf []byte
}

// get reads path as accept (application/json when empty).
func (r *reader) get(ctx context.Context, path, accept string) ([]byte, error) {
	out, err := r.c.doInto(ctx, http.MethodGet, path, accept, nil, http.StatusOK, r.buf)
	if cap(out) > cap(r.buf) {
		r.buf = out[:0]
	}
	return out, err
}

// get sends a GET that must answer 200.
func (c client) get(ctx context.Context, path string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, path, "", nil, http.StatusOK)
}
