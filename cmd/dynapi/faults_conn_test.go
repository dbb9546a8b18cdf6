package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/connlimit"
	"github.com/dynapi/dynapi/internal/wait"
)

// The figures of TestConnectionsBounded.
const (
	connLimit       = 4
	connBodyTimeout = 5 * time.Second // the request timeout, which bounds a body's arrival
)

// Clients that trickle their bodies fill the open-connection limit: the
// health endpoints are still answered, on the reserve connections; other
// requests there get 429 with Retry-After; a connection over the reserve
// is closed at once; the trickling bodies are cut off at the request
// timeout with a 504, and their places serve again.
func TestConnectionsBounded(t *testing.T) {
	dbURL, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: dbURL, MaxOpenConnections: connLimit,
		Security: SecurityConfig{RequestTimeout: connBodyTimeout}})
	addr := m.Addr()
	var trickling []*slowCreate
	for i := range connLimit {
		trickling = append(trickling, startSlowCreate(t, "http://"+addr, fmt.Sprintf("slow-%d", i)))
	}
	for range connlimit.Reserve { // trickling creates on every reserve connection
		c := dialKept(t, addr)
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", configMaps)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
			t.Fatalf("a create on a reserve connection: %v %v, want 429 with Retry-After", resp, err)
		}
	}
	// They leave the reserve at once, not when their bodies are cut off.
	wait.Eventually(t, connBodyTimeout/2, func() (bool, string) {
		code, answer := oneShot(t, addr, "/readyz")
		return code == http.StatusOK, fmt.Sprintf("/readyz at the connection limit = %d %s, want 200", code, answer)
	})
	code, answer := oneShot(t, addr, "/api/v1/namespaces")
	if code != http.StatusTooManyRequests || !strings.Contains(answer, "Retry-After: 1") {
		t.Errorf("a list at the connection limit = %d:\n%s\nwant 429 with Retry-After", code, answer)
	}
	// Idle connections fill the reserve, each from an address of its own:
	// one address holds a quarter of the limit before its first request.
	var idle []net.Conn
	for i := range connlimit.Reserve {
		idle = append(idle, dialFrom(t, fmt.Sprintf("127.0.1.%d", i+1), addr))
	}
	over := dialFrom(t, "127.0.2.1", addr)
	_ = over.SetReadDeadline(time.Now().Add(processStopTimeout))
	if _, err := over.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("a connection over the limit and the reserve: read = %v, want it closed", err)
	}
	for i, c := range trickling {
		resp, err := http.ReadResponse(c.r, nil) // no more of the body is sent
		if err != nil {
			t.Fatalf("trickling body %d: %v", i, err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(out), `"reason":"Timeout"`) {
			t.Errorf("trickling body %d = %d %s, want 504 Timeout after the request timeout", i, resp.StatusCode, out)
		}
		c.conn.Close()
	}
	for _, c := range append(idle, over) {
		c.Close()
	}
	// The server sees the idle connections close when it reads them next.
	wait.Eventually(t, processStopTimeout, func() (bool, string) {
		code, answer := oneShot(t, addr, "/api/v1/namespaces/default")
		return code == http.StatusOK, fmt.Sprintf("a get once the connections are closed = %d:\n%s", code, answer)
	})
}

// dialKept opens a connection that the test closes at its end.
func dialKept(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// oneShot sends GET path on a connection of its own and returns the
// status and the whole answer, headers included; 0 and the error when the
// connection was closed without an answer.
func oneShot(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	c := dialKept(t, addr)
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", path)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err.Error() // closed at accept
	}
	defer resp.Body.Close()
	var out strings.Builder
	_ = resp.Header.Write(&out)
	body, _ := io.ReadAll(resp.Body)
	out.Write(body)
	return resp.StatusCode, out.String()
}
