package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// requestTimeout bounds every request but watches; a list of 100k objects
// takes seconds.
const requestTimeout = 2 * time.Minute

// client sends requests to one dynapi server.
type client struct {
	base string // server URL, without a trailing slash
	http *http.Client
}

// newTransport keeps a connection per client open to each server, so that
// the benchmark measures requests, not TCP handshakes.
func newTransport(clients int) *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        4 * clients,
		MaxIdleConnsPerHost: 2 * clients,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
}

// newClient returns an HTTP client for clients concurrent users.
func newClient(clients int) *http.Client {
	return &http.Client{Transport: newTransport(clients)}
}

// do sends a request and returns the response body; a status other than
// want is an error that quotes the body.
func (c client) do(ctx context.Context, method, path, contentType string, body []byte, want int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: %s: %.300s", method, path, resp.Status, out)
	}
	return out, nil
}

// get sends a GET that must answer 200.
func (c client) get(ctx context.Context, path string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, path, "", nil, http.StatusOK)
}
