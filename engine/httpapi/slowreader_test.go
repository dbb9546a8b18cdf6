package httpapi_test

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/registry"
)

// attackers is how many lists the slow-reader attack holds open: more
// than the database pool of a 2-core machine (8).
const attackers = 12

// TestSlowReadersCannotStopTheServer: clients that ask for a large list
// (or a watch, which starts with one) and never read it, over HTTP/1.1 (a full TCP window) or HTTP/2 (streams
// with no flow-control credit), hold no database connection: while they
// wait, everyone else is served.
func TestSlowReadersCannotStopTheServer(t *testing.T) {
	var snapshots atomic.Pointer[registry.Snapshot]
	api, _ := startControlPlane(t, &snapshots, snapshots.Store, httpapi.Options{})
	plain := httptest.NewServer(api)
	t.Cleanup(plain.Close)
	h2 := httptest.NewUnstartedServer(api)
	h2.EnableHTTP2 = true
	h2.StartTLS()
	t.Cleanup(h2.Close)
	s := &testServer{t: t, url: plain.URL}
	// 8 MB: more than a list queues besides the kernel's socket buffers,
	// which take up to 4 MB on loopback here.
	pad := strings.Repeat("x", 200_000)
	for i := range 40 {
		s.create(widgets, fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget",
			"metadata":{"name":"w%03d","annotations":{"pad":%q}},"spec":{"size":3}}`, i, pad))
	}
	tests := []struct {
		name   string
		attack func(t *testing.T) (stop func())
	}{
		{"HTTP/1.1", func(t *testing.T) func() { return neverReadHTTP1(t, plain.Listener.Addr().String(), widgets) }},
		{"HTTP/2", func(t *testing.T) func() { return neverReadHTTP2(t, h2.Listener.Addr().String(), widgets) }},
		// A watch from no resourceVersion starts with the list as ADDED events.
		{"HTTP/1.1 watch", func(t *testing.T) func() {
			return neverReadHTTP1(t, plain.Listener.Addr().String(), widgets+"?watch=1")
		}},
		{"HTTP/2 watch", func(t *testing.T) func() { return neverReadHTTP2(t, h2.Listener.Addr().String(), widgets+"?watch=1") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stop := tt.attack(t)
			defer stop()
			time.Sleep(time.Second) // the lists are under way and stuck on their clients
			// 20 s, not 5: stuck readers would hold their connections for
			// ever, while 12 lists of 8 MB that still run on a loaded
			// machine (CI at load average 15) took longer than 5 s.
			client := &http.Client{Timeout: 20 * time.Second}
			for _, path := range []string{widgets + "/w001", widgets + "?limit=5", "/readyz"} {
				start := time.Now()
				resp, err := client.Get(plain.URL + path)
				if err != nil {
					t.Fatalf("GET %s while %d slow readers wait: %v", path, attackers, err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET %s while %d slow readers wait: %d", path, attackers, resp.StatusCode)
				}
				t.Logf("GET %s: %v", path, time.Since(start))
			}
		})
	}
}

// neverReadHTTP1 opens attackers connections with small receive buffers,
// asks each for the list at path, and never reads.
func neverReadHTTP1(t *testing.T, addr, path string) func() {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	var conns []net.Conn
	for range attackers {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr)
		conns = append(conns, c)
	}
	return func() {
		for _, c := range conns {
			c.Close()
		}
	}
}

// neverReadHTTP2 opens one HTTP/2 connection whose streams get no
// flow-control credit (initial window 0, never a WINDOW_UPDATE), and asks
// for the list at path on attackers streams.
func neverReadHTTP2(t *testing.T, addr, path string) func() {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := c.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("negotiated %q, want h2", p)
	}
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0}); err != nil {
		t.Fatal(err)
	}
	go ackSettings(c)
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for i := range attackers {
		hb.Reset()
		for _, f := range [][2]string{{":method", "GET"}, {":scheme", "https"}, {":authority", addr}, {":path", path}} {
			_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: uint32(2*i + 1), BlockFragment: hb.Bytes(),
			EndStream: true, EndHeaders: true}); err != nil {
			t.Fatal(err)
		}
	}
	return func() { c.Close() }
}

// ackSettings answers the server's SETTINGS, as a client must, and reads
// every other frame without ever granting credit. A framer writes a frame
// in one Write, and tls.Conn's writes do not interleave: the two framers
// may share the connection.
func ackSettings(c *tls.Conn) {
	fr := http2.NewFramer(c, c)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		if sf, ok := f.(*http2.SettingsFrame); ok && !sf.IsAck() {
			_ = fr.WriteSettingsAck()
		}
	}
}
