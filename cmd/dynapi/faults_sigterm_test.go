package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// watchEndBound is how soon after SIGTERM an open watch must have ended:
// well under the 10 s the server gives requests in flight to finish, which
// a watch held before watches were ended at shutdown.
const watchEndBound = 5 * time.Second

// SIGTERM lets a request in flight finish, ends an open watch at once (its
// client sees the stream end, and watches again elsewhere), and the
// process exits with status 0.
func TestSIGTERMDrains(t *testing.T) {
	dbURL, _ := startPostgres(t)
	p := startProcess(t, "A", dbURL)
	_, _, w := openWatch(t.Context(), t, p.url, listRVOf(t, p.url))
	create := startSlowCreate(t, p.url, "in-flight")
	p.signal(t, syscall.SIGTERM)
	select {
	case <-w.ended:
	case <-time.After(watchEndBound):
		t.Errorf("the watch was still open %s after SIGTERM", watchEndBound)
	}
	if code, answer := create.finish(t); code != http.StatusCreated {
		t.Errorf("the create in flight at SIGTERM = %d: %s", code, answer)
	}
	if err := p.waitExit(t); err != nil {
		t.Errorf("exit after SIGTERM: %v; its log:\n%s", err, p.log.tail())
	}
	p.log.check(t, p.name)
	if len(w.errors) > 0 {
		t.Errorf("the watch ended with %v, want a plain end", w.errors)
	}
}

// slowCreate is a create whose body is sent in two parts.
type slowCreate struct {
	conn net.Conn
	r    *bufio.Reader
	rest string
}

// startSlowCreate sends the headers of a create and waits until the server
// asks for its body (100 Continue): the request is in its handler.
func startSlowCreate(t *testing.T, base, name string) *slowCreate {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q}}`, name)
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n%s",
		configMaps, len(body), body[:10])
	c := &slowCreate{conn: conn, r: bufio.NewReader(conn), rest: body[10:]}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("the create's headers: %v %v, want 100 Continue", resp, err)
	}
	return c
}

// finish sends the rest of the body and returns the answer.
func (c *slowCreate) finish(t *testing.T) (int, string) {
	t.Helper()
	if _, err := c.conn.Write([]byte(c.rest)); err != nil {
		t.Fatalf("send the rest of the body: %v", err)
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	defer resp.Body.Close()
	var out strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&out)
	return resp.StatusCode, out.String()
}
