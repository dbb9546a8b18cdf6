package connlimit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// firstRequest is the first-request deadline of these tests: short, so
// that they wait little, and far below closeWait.
const (
	firstRequest = 200 * time.Millisecond
	closeWait    = 20 * time.Second
)

// dialFrom opens a connection to addr from the loopback address from
// (127.0.0.0/8 is all loopback on Linux), closed at the test's end.
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer reads c until the server closes it, and says so if it
// has not within closeWait.
func closedByServer(c net.Conn) error {
	_ = c.SetReadDeadline(time.Now().Add(closeWait))
	_, err := io.Copy(io.Discard, c)
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("still open after %v", closeWait)
	}
	return nil
}

// One address holds at most PerAddress unproven connections: more are
// closed at accept, while another address still gets in; a connection
// that authenticates, or closes, gives its unproven place back.
func TestPerAddress(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := NewListener(inner, 10, 0, Options{PerAddress: 2, Authenticating: true})
	t.Cleanup(func() { l.Close() })
	conns := make(chan net.Conn)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(conns)
				return
			}
			conns <- c
		}
	}()
	addr := inner.Addr().String()
	attacker := func() net.Conn { dialFrom(t, "127.0.0.2", addr); return <-conns }
	first, second := attacker(), attacker()
	steps := []struct {
		name   string
		before func()
		from   string
		wantIn bool
	}{
		{name: "a third unproven from one address", from: "127.0.0.2"},
		{name: "one from another address", from: "127.0.0.3", wantIn: true},
		{name: "after one authenticated", before: func() { Authenticated(ConnContext(context.Background(), first)) },
			from: "127.0.0.2", wantIn: true},
		{name: "the next one", from: "127.0.0.2"},
		{name: "after an unproven one closed", before: func() { second.Close() }, from: "127.0.0.2", wantIn: true},
		{name: "after a proven one closed", before: func() { first.Close(); first.Close() }, from: "127.0.0.2"},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		c := dialFrom(t, s.from, addr)
		if !s.wantIn {
			if err := closedByServer(c); err != nil {
				t.Errorf("%s: %v, want it closed at accept", s.name, err)
			}
			continue
		}
		select {
		case <-conns:
		case <-time.After(closeWait):
			t.Errorf("%s: not accepted", s.name)
		}
	}
}

// serve runs an http.Server of h on a Listener bounded by opts: over TLS,
// HTTP/2 included, when overTLS.
func serve(t *testing.T, opts Options, overTLS bool, h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = NewListener(srv.Listener, 0, 0, opts)
	srv.Config.ConnState, srv.Config.ConnContext = ConnState, ConnContext
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes cut off
	if overTLS {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv
}

// http2Preface is what an HTTP/2 client sends first: the preface and an
// empty SETTINGS frame.
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + "\x00\x00\x00\x04\x00\x00\x00\x00\x00"

// A connection that has not sent its first request's headers within the
// deadline is closed, whatever it did before: nothing, a TLS handshake,
// an HTTP/2 preface, part of the headers.
func TestFirstRequestTimeoutCloses(t *testing.T) {
	tests := []struct {
		name    string
		overTLS bool
		tls     bool   // a TLS handshake first
		alpn    string // what it negotiates
		send    string
	}{
		{name: "idle"},
		{name: "headers unfinished", send: "GET / HTTP/1.1\r\nHost: x\r\n"},
		{name: "no TLS handshake", overTLS: true},
		{name: "TLS handshake only", overTLS: true, tls: true},
		{name: "HTTP/2 preface only", overTLS: true, tls: true, alpn: "h2", send: http2Preface},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, Options{FirstRequestTimeout: firstRequest}, tt.overTLS, http.NotFoundHandler())
			c := dialFrom(t, "127.0.0.1", srv.Listener.Addr().String())
			if tt.tls {
				c = handshake(t, srv, c, tt.alpn)
			}
			if _, err := io.WriteString(c, tt.send); err != nil {
				t.Fatal(err)
			}
			if err := closedByServer(c); err != nil {
				t.Errorf("%v, want it closed after %v", err, firstRequest)
			}
		})
	}
}

// handshake makes c a TLS connection to srv, with ALPN protocol alpn
// (none if "").
func handshake(t *testing.T, srv *httptest.Server, c net.Conn, alpn string) net.Conn {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	conf := &tls.Config{RootCAs: roots, ServerName: "example.com"}
	if alpn != "" {
		conf.NextProtos = []string{alpn}
	}
	tc := tls.Client(c, conf)
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	if got := tc.ConnectionState().NegotiatedProtocol; got != alpn {
		t.Fatalf("negotiated %q, want %q", got, alpn)
	}
	return tc
}

// A request that lasts beyond the deadline (a watch), and the requests
// after it on the same connection, are not cut: the deadline ends with
// the first request's headers. Over HTTP/1.1 and HTTP/2.
func TestFirstRequestTimeoutSparesRequests(t *testing.T) {
	const lines = 4
	watch := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range lines {
			fmt.Fprintf(w, "%d\n", i)
			http.NewResponseController(w).Flush()
			time.Sleep(firstRequest / 2)
		}
	})
	for _, overTLS := range []bool{false, true} {
		t.Run(fmt.Sprintf("TLS %v", overTLS), func(t *testing.T) {
			srv := serve(t, Options{FirstRequestTimeout: firstRequest}, overTLS, watch)
			client := srv.Client()
			for i := range 2 { // the second request comes after the deadline, on the same connection
				resp, err := client.Get(srv.URL)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || strings.Count(string(body), "\n") != lines {
					t.Fatalf("request %d (%s): %q %v, want %d lines", i, resp.Proto, body, err, lines)
				}
				if overTLS && resp.ProtoMajor != 2 {
					t.Errorf("request %d over TLS: %s, want HTTP/2", i, resp.Proto)
				}
			}
		})
	}
}
