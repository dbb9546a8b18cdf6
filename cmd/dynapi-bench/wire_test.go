package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestReadResponse(t *testing.T) {
	tests := []struct {
		name     string
		method   string
		raw      string
		wantCode int
		wantBody string
		wantKeep bool
		wantErr  string
		// into is the memory offered for the body; wantReuse says the body
		// must be read into it.
		into      []byte
		wantReuse bool
	}{
		{name: "content length", raw: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
			wantCode: 200, wantBody: "hello", wantKeep: true},
		{name: "header names in any case", raw: "HTTP/1.1 201 Created\r\ncontent-length: 2\r\nCONNECTION: Close\r\n\r\nok",
			wantCode: 201, wantBody: "ok"},
		{name: "chunked with extension and trailer",
			raw:      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n",
			wantCode: 200, wantBody: "abc0123456789", wantKeep: true},
		{name: "chunked into used memory with room", into: []byte("stale bytes, longer than the body"), wantReuse: true,
			raw:      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
			wantCode: 200, wantBody: "abcde", wantKeep: true},
		{name: "chunked into memory without room", into: []byte("ab"),
			raw:      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
			wantCode: 200, wantBody: "abcde", wantKeep: true},
		{name: "content length into used memory with room", into: []byte("stale bytes"), wantReuse: true,
			raw: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", wantCode: 200, wantBody: "hello", wantKeep: true},
		{name: "body to the end of the connection", raw: "HTTP/1.0 200 OK\r\n\r\nuntil EOF",
			wantCode: 200, wantBody: "until EOF"},
		{name: "no body for 204", raw: "HTTP/1.1 204 No Content\r\n\r\n", wantCode: 204, wantKeep: true},
		{name: "no body for HEAD", method: "HEAD", raw: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n",
			wantCode: 200, wantKeep: true},
		{name: "bad status line", raw: "HTTP/2 200\r\n\r\n", wantErr: "malformed status line"},
		{name: "bad status code", raw: "HTTP/1.1 2x0 OK\r\n\r\n", wantErr: "malformed status line"},
		{name: "bad header", raw: "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", wantErr: "malformed header"},
		{name: "bad length", raw: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", wantErr: "malformed Content-Length"},
		{name: "short body", raw: "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", wantErr: "unexpected EOF"},
		{name: "bad chunk size", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", wantErr: "malformed chunk size"},
		{name: "chunk without CRLF", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", wantErr: "no CRLF"},
		{name: "cut in the headers", raw: "HTTP/1.1 200 OK\r\nContent-Le", wantErr: "read headers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = "GET"
			}
			code, body, keep, err := readResponse(bufio.NewReader(strings.NewReader(tt.raw)), method, tt.into)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode || string(body) != tt.wantBody || keep != tt.wantKeep {
				t.Fatalf("got %d %q keep=%v, want %d %q keep=%v", code, body, keep, tt.wantCode, tt.wantBody, tt.wantKeep)
			}
			if reused := len(body) > 0 && len(tt.into) > 0 && &body[0] == &tt.into[0]; reused != tt.wantReuse {
				t.Fatalf("body read into the memory offered: %v, want %v", reused, tt.wantReuse)
			}
		})
	}
}

// TestWireAgainstNetHTTP talks to a net/http server: bodies both ways,
// small (Content-Length) and large (chunked), errors, and connections
// reused unless the server closes them.
func TestWireAgainstNetHTTP(t *testing.T) {
	large := strings.Repeat("0123456789", 10_000)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, r.Header.Get("Content-Type")+"|"+string(body))
	})
	mux.HandleFunc("GET /large", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, large) })
	mux.HandleFunc("GET /close", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		io.WriteString(w, "bye")
	})
	srv := httptest.NewUnstartedServer(mux)
	var dials atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	w, err := newWire(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	steps := []struct {
		method, path, contentType, body string
		wantCode                        int
		wantBody                        string
		wantDials                       int32
	}{
		{"POST", "/echo", "application/json", `{"a":1}`, 201, `application/json|{"a":1}`, 1},
		{"GET", "/large", "", "", 200, large, 1},
		{"GET", "/missing", "", "", 404, "404 page not found\n", 1},
		{"POST", "/echo", "", "", 201, "|", 1},
		{"GET", "/close", "", "", 200, "bye", 1},
		{"GET", "/large", "", "", 200, large, 2}, // the server closed the first connection
	}
	for _, s := range steps {
		var body []byte
		if s.body != "" {
			body = []byte(s.body)
		}
		code, out, err := w.do(ctx, s.method, s.path, s.contentType, body)
		if err != nil {
			t.Fatalf("%s %s: %v", s.method, s.path, err)
		}
		if code != s.wantCode || string(out) != s.wantBody {
			t.Fatalf("%s %s = %d %.80q, want %d %.80q", s.method, s.path, code, out, s.wantCode, s.wantBody)
		}
		if got := dials.Load(); got != s.wantDials {
			t.Fatalf("after %s %s: %d connections, want %d", s.method, s.path, got, s.wantDials)
		}
	}
}

func TestNewWireRefusesHTTPS(t *testing.T) {
	if _, err := newWire("https://127.0.0.1:8443", ""); err == nil || !strings.Contains(err.Error(), "plain http") {
		t.Fatalf("error = %v, want one about plain http", err)
	}
}

// TestWireEndsWithContext: a request to a server that does not answer ends
// when its context does, and its connection is not reused.
func TestWireEndsWithContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	w, err := newWire(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, _, err := w.do(ctx, "GET", "/", "", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want the context's", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("returned after %s", waited)
	}
	if len(w.idle) != 0 {
		t.Fatal("the connection of the abandoned request was kept")
	}
}

// TestWireDropsConnectionsIdleTooLong: a connection idle for longer than
// maxIdleAge, which the server may have closed meanwhile (dynapi closes
// kept-alive connections after 90 s without a request), is not used
// again: the request goes on a new one instead of reading EOF.
func TestWireDropsConnectionsIdleTooLong(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	w, err := newWire(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, err := w.do(context.Background(), "GET", "/", "", nil); err != nil || code != http.StatusOK {
		t.Fatalf("first request: %d, %v", code, err)
	}
	c := <-w.idle
	c.idleSince = time.Now().Add(-2 * maxIdleAge)
	w.idle <- c
	srv.CloseClientConnections() // as the server's idle timeout does
	if code, _, err := w.do(context.Background(), "GET", "/", "", nil); err != nil || code != http.StatusOK {
		t.Fatalf("request after the idle connection was closed: %d, %v", code, err)
	}
}
