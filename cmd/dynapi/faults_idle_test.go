package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/connlimit"
	"github.com/dynapi/dynapi/internal/wait"
)

// The figures of TestIdleSocketsLockNobodyOut.
const (
	idleLimit        = 8 // one address holds a quarter of it before authenticating
	idleFirstRequest = time.Second
	// More sockets than every place, the reserve's too.
	idleSockets = idleLimit + connlimit.Reserve + 8
	// Shorter than ReadHeaderTimeout, which closed idle sockets before
	// the first-request deadline did.
	idleCloseWait = 20 * time.Second
)

// One address keeps more idle sockets open than the cap and its reserve,
// reopening each as the server closes it; meanwhile a client with a
// token is served, on a new connection each time, over several
// first-request deadlines; an idle socket is closed at that deadline; and
// authenticated connections from one address do not count against its
// share.
func TestIdleSocketsLockNobodyOut(t *testing.T) {
	dbURL, _ := startPostgres(t)
	tokens := secretFile(t, t.TempDir(), "tokens.csv", []byte("admin-token,admin,1\n"))
	m := startMain(t, Config{DatabaseURL: dbURL, MaxOpenConnections: idleLimit, FirstRequestTimeout: idleFirstRequest,
		Security: SecurityConfig{TokenAuthFile: tokens, AuthorizationMode: modeAlwaysAllow}})
	addr := m.Addr()
	closed := holdIdle(t, addr, "127.0.0.2", idleSockets)
	// The server closes sockets at accept only once the attacker holds
	// all it may.
	wait.Eventually(t, processStopTimeout, func() (bool, string) {
		n := closed.Load()
		return n >= idleSockets-idleLimit-connlimit.Reserve, fmt.Sprintf("%d idle sockets closed by the server, want the attack in place", n)
	})

	admin := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 6 {
		if code, err := getWithToken(admin, "http://"+addr+"/api/v1/namespaces"); code != http.StatusOK {
			t.Errorf("admin's request %d under the attack: %d %v, want 200", i, code, err)
		}
		time.Sleep(idleFirstRequest / 2) // the attacker's sockets are closed and reopened meanwhile
	}

	idle := dialFrom(t, "127.0.0.3", addr)
	_ = idle.SetReadDeadline(time.Now().Add(idleCloseWait))
	if _, err := io.Copy(io.Discard, idle); err != nil {
		t.Errorf("an idle socket: %v, want it closed after %v", err, idleFirstRequest)
	}

	for i := range idleLimit / 4 * 2 { // twice the address's unproven share, each connection kept alive
		c := &http.Client{Transport: &http.Transport{DialContext: dialerFrom("127.0.0.4").DialContext}}
		t.Cleanup(c.CloseIdleConnections)
		if code, err := getWithToken(c, "http://"+addr+"/api/v1/namespaces"); code != http.StatusOK {
			t.Errorf("authenticated connection %d from one address: %d %v, want 200", i, code, err)
		}
	}
}

// holdIdle keeps sockets connections from address from open to addr,
// sending nothing, and opens another as soon as the server closes one,
// until the test ends. It counts those the server closed.
func holdIdle(t *testing.T, addr, from string, sockets int) *atomic.Int64 {
	ctx, cancel := context.WithCancel(context.Background())
	var closed atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	d := dialerFrom(from)
	for range sockets {
		wg.Go(func() {
			for ctx.Err() == nil {
				if c, err := d.DialContext(ctx, "tcp", addr); err == nil {
					stop := context.AfterFunc(ctx, func() { c.Close() })
					_, _ = c.Read(make([]byte, 1)) // until the server closes it
					if stop() {
						closed.Add(1)
					}
					c.Close()
				}
				wait.Sleep(ctx, 20*time.Millisecond) // reopened at once, yet sparing the CPU
			}
		})
	}
	return &closed
}

// dialerFrom dials from the loopback address from (127.0.0.0/8 is all
// loopback on Linux), as another client host would.
func dialerFrom(from string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
}

// dialFrom is dialKept from the loopback address from.
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	c, err := dialerFrom(from).Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// getWithToken GETs url as the admin and returns the status, or the error
// of a connection closed without an answer.
func getWithToken(c *http.Client, url string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer admin-token")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, errors.New(resp.Status)
	}
	return resp.StatusCode, nil
}
