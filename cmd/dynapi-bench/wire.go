package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// wire sends HTTP/1.1 requests over kept-alive connections to one server,
// writing each request in one write and parsing only what the tool needs
// of the answer: status, Content-Length or chunked body, Connection: close.
//
// Why not net/http: the tool shares the machine's cores with dynapi and
// PostgreSQL, and every microsecond it spends is taken from them. Measured
// on two cores, net/http's client took 31 µs of CPU per get and 81 µs per
// create, three times what pgx takes for the baseline's query; the load
// generators people trust for this (wrk, h2load) are lean for the same
// reason. Watches, which stream, still use net/http.
type wire struct {
	host string         // host:port, dialled and sent as Host
	idle chan *wireConn // connections free for the next request
	auth string         // the Authorization header line, if any
}

// wireConn is one connection with its read buffer.
type wireConn struct {
	conn net.Conn
	r    *bufio.Reader
	req  []byte // the request being written, kept to reuse its memory
	// deadline is the connection's read and write deadline.
	deadline time.Time
	// idleSince is when the connection was last put back idle.
	idleSince time.Time
}

// maxIdle is the most connections a wire keeps open between requests: one
// per concurrent client is enough; more are closed after use.
const maxIdle = 256

// maxIdleAge is how long a connection may stay idle and still be used.
// dynapi, as kube-apiserver, closes a kept-alive connection after 90 s
// without a request; a request sent on it then reads EOF. At 100,000
// objects the clients of the create phase sit idle through the baseline
// and the lists for longer than that.
const maxIdleAge = 30 * time.Second

func newWire(base, token string) (*wire, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" {
		return nil, fmt.Errorf("%q: the tool speaks plain http to dynapi", base)
	}
	w := &wire{host: u.Host, idle: make(chan *wireConn, maxIdle)}
	if token != "" {
		w.auth = "Authorization: Bearer " + token + "\r\n"
	}
	return w, nil
}

// do sends one request and returns the status code and the body.
// contentType is the body's Content-Type; for a GET, which has no body,
// it is the Accept header instead (application/json when empty).
func (w *wire) do(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, error) {
	return w.doInto(ctx, method, path, contentType, body, nil)
}

// doInto is do, with the answer's body read into into's memory when it
// has room (see readResponse).
func (w *wire) doInto(ctx context.Context, method, path, contentType string, body, into []byte) (int, []byte, error) {
	c, err := w.get(ctx)
	if err != nil {
		return 0, nil, err
	}
	if err := c.bound(); err != nil {
		c.conn.Close()
		return 0, nil, err
	}
	// A ctx that ends (Ctrl-C, a deadline) ends the request; the
	// connection is closed after.
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Unix(1, 0)) })
	code, out, keep, err := c.roundTrip(w.host, w.auth, method, path, contentType, body, into)
	if !stop() {
		keep = false // its deadline is in the past
	}
	if err != nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil || !keep {
		c.conn.Close()
		return code, out, err
	}
	w.put(c)
	return code, out, nil
}

// get takes an idle connection, or dials one.
func (w *wire) get(ctx context.Context) (*wireConn, error) {
	if c := w.takeIdle(); c != nil {
		return c, nil
	}
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", w.host)
	if err != nil {
		return nil, err
	}
	return &wireConn{conn: conn, r: bufio.NewReaderSize(conn, 32<<10)}, nil
}

// takeIdle returns an idle connection idle for at most maxIdleAge,
// closing older ones on the way; nil when there is none.
func (w *wire) takeIdle() *wireConn {
	for {
		select {
		case c := <-w.idle:
			if time.Since(c.idleSince) <= maxIdleAge {
				return c
			}
			c.conn.Close()
		default:
			return nil
		}
	}
}

// bound keeps the connection's deadline requestTimeout ahead. Why not
// at every request: setting a deadline moves a runtime timer, a cost the
// tool would pay thousands of times a second; a deadline more than half a
// timeout away bounds the request well enough. A ctx that ends earlier
// ends the request through do's AfterFunc.
func (c *wireConn) bound() error {
	now := time.Now()
	if c.deadline.Sub(now) > requestTimeout/2 {
		return nil
	}
	c.deadline = now.Add(requestTimeout)
	return c.conn.SetDeadline(c.deadline)
}

// put keeps c for the next request, or closes it when enough are idle.
func (w *wire) put(c *wireConn) {
	c.idleSince = time.Now()
	select {
	case w.idle <- c:
	default:
		c.conn.Close()
	}
}

// roundTrip writes the request and reads the response into into's memory;
// keep says whether the connection may carry another request.
func (c *wireConn) roundTrip(host, auth, method, path, contentType string, body, into []byte) (code int, out []byte, keep bool, err error) {
	accept := "application/json"
	if method == "GET" && contentType != "" {
		accept, contentType = contentType, ""
	}
	c.req = fmt.Appendf(c.req[:0], "%s %s HTTP/1.1\r\nHost: %s\r\nAccept: %s\r\n%s", method, path, host, accept, auth)
	if contentType != "" {
		c.req = fmt.Appendf(c.req, "Content-Type: %s\r\n", contentType)
	}
	if body != nil || method == "POST" || method == "PUT" || method == "PATCH" {
		c.req = fmt.Appendf(c.req, "Content-Length: %d\r\n", len(body))
	}
	c.req = append(append(c.req, "\r\n"...), body...)
	if _, err := c.conn.Write(c.req); err != nil {
		return 0, nil, false, err
	}
	return readResponse(c.r, method, into)
}

// readResponse reads one HTTP/1.1 response from r. The body goes into
// into's memory when it has room, else into memory of its own.
//
// Why reuse: a whole list of 10,000 objects is 17 MB. Read into fresh
// memory each time, the tool spent more CPU on page faults and the
// collector than dynapi spent on the list, on the cores the list runs on.
func readResponse(r *bufio.Reader, method string, into []byte) (code int, body []byte, keep bool, err error) {
	line, err := readLine(r)
	if err != nil {
		return 0, nil, false, fmt.Errorf("read status line: %w", err)
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, nil, false, fmt.Errorf("malformed status line %.80q", line)
	}
	if code, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, nil, false, fmt.Errorf("malformed status line %.80q", line)
	}
	length, chunked, keep := int64(-1), false, true
	for {
		line, err := readLine(r)
		if err != nil {
			return code, nil, false, fmt.Errorf("read headers: %w", err)
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return code, nil, false, fmt.Errorf("malformed header %.80q", line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqualFold(name, "Content-Length"):
			if length, err = strconv.ParseInt(string(value), 10, 64); err != nil || length < 0 {
				return code, nil, false, fmt.Errorf("malformed Content-Length %q", value)
			}
		case asciiEqualFold(name, "Transfer-Encoding"):
			chunked = asciiEqualFold(value, "chunked")
		case asciiEqualFold(name, "Connection"):
			keep = !asciiEqualFold(value, "close")
		}
	}
	switch {
	case method == "HEAD" || code == 204 || code == 304 || code/100 == 1:
		return code, nil, keep, nil
	case chunked:
		body, err = readChunked(r, into[:0])
	case length >= 0:
		body = slices.Grow(into[:0], int(length))[:length]
		_, err = io.ReadFull(r, body)
	default: // the body runs to the end of the connection
		body, err = io.ReadAll(r)
		keep = false
	}
	if err != nil {
		return code, nil, false, fmt.Errorf("read body: %w", err)
	}
	return code, body, keep, nil
}

// readChunked appends a chunked body to body and reads its (ignored)
// trailers.
func readChunked(r *bufio.Reader, body []byte) ([]byte, error) {
	for {
		line, err := readLine(r)
		if err != nil {
			return nil, err
		}
		size, _, _ := bytes.Cut(line, []byte(";")) // chunk extensions are ignored
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("malformed chunk size %.40q", line)
		}
		if n == 0 {
			break
		}
		start := len(body)
		body = slices.Grow(body, int(n))[:start+int(n)]
		if _, err := io.ReadFull(r, body[start:]); err != nil {
			return nil, err
		}
		if crlf, err := readLine(r); err != nil || len(crlf) != 0 {
			return nil, errors.New("malformed chunk: no CRLF after its data")
		}
	}
	for { // trailers, up to the empty line
		line, err := readLine(r)
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			return body, nil
		}
	}
}

// readLine reads a line without its CRLF; the bytes are valid until the
// next read.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(line[:len(line)-1], []byte("\r")), nil
}

// asciiEqualFold compares a header name or token with s, ignoring ASCII case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
