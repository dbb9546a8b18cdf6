package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
)

// A client flooding the server gets 429 with Retry-After once it holds
// its share; another user is still served; watches and system:masters
// are not counted.
func TestInflightLimits(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("block") != "" {
			started.Done()
			<-release
		}
		w.WriteHeader(http.StatusOK)
	})
	s := &Server{logger: slog.New(slog.DiscardHandler), readOnly: newInflight(4), mutating: newInflight(2),
		metrics: newRequestMetrics(prometheus.NewRegistry())}
	h := withRequestInfo(s.instrument(s.limit(handler)))
	serve := func(user, method, target string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, nil)
		if user != "" {
			groups := []string{engine.GroupAuthenticated}
			if user == "root" {
				groups = append(groups, engine.GroupMasters)
			}
			r = r.WithContext(engine.WithUser(r.Context(), &engine.User{Name: user, Groups: groups}))
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	const list = "/api/v1/namespaces/default/configmaps"
	var done sync.WaitGroup
	for range 2 { // alice holds her share: half of 4
		started.Add(1)
		done.Add(1)
		go func() { defer done.Done(); serve("alice", "GET", list+"?block=1") }()
	}
	started.Wait()
	w := serve("alice", "GET", list)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" ||
		gjson.Get(w.Body.String(), "reason").String() != "TooManyRequests" ||
		gjson.Get(w.Body.String(), "message").String() != "Too many requests, please try again later." {
		t.Fatalf("alice over her share: %d %v %s", w.Code, w.Header(), w.Body)
	}
	for _, c := range []struct{ user, method, target string }{
		{"bob", "GET", list},                   // another user
		{"alice", "POST", list},                // mutating requests have their own bound
		{"alice", "GET", list + "?watch=true"}, // long-running
		{"root", "GET", list},                  // system:masters
		{"alice", "GET", "/readyz"},            // health
	} {
		if w := serve(c.user, c.method, c.target); w.Code != http.StatusOK {
			t.Errorf("%s %s %s: %d %s", c.user, c.method, c.target, w.Code, w.Body)
		}
	}
	for range 2 { // bob takes the rest: the server is full
		started.Add(1)
		done.Add(1)
		go func() { defer done.Done(); serve("bob", "GET", list+"?block=1") }()
	}
	started.Wait()
	if w := serve("carol", "GET", list); w.Code != http.StatusTooManyRequests {
		t.Errorf("carol with the server full: %d", w.Code)
	}
	close(release)
	done.Wait()
	if w := serve("alice", "GET", list); w.Code != http.StatusOK {
		t.Errorf("alice after the flood: %d", w.Code)
	}
	// Both refusals are terminations in self-defense, as kube-apiserver
	// counts them.
	terminated := s.metrics.terminations.WithLabelValues("LIST", "", "", "", "", "namespace", component, "429")
	if got := testutil.ToFloat64(terminated); got != 2 {
		t.Errorf("apiserver_request_terminations_total of the 429s = %v, want 2", got)
	}
}

// A request that outlives the request timeout is answered 504 Timeout;
// a watch is not bounded by it.
func TestRequestTimeout(t *testing.T) {
	s := &Server{logger: slog.New(slog.DiscardHandler), requestTimeout: 50 * time.Millisecond,
		ready: func(context.Context) error { return nil }}
	h := withRequestInfo(s.withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			s.writeError(w, r, fmt.Errorf("list: %w", r.Context().Err()))
		case <-time.After(200 * time.Millisecond):
			w.WriteHeader(http.StatusOK)
		}
	})))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/api/v1/configmaps", nil))
	if w.Code != http.StatusGatewayTimeout || gjson.Get(w.Body.String(), "reason").String() != "Timeout" {
		t.Fatalf("slow list: %d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/api/v1/configmaps?watch=1", nil))
	if w.Code != http.StatusOK {
		t.Fatalf("watch: %d %s", w.Code, w.Body)
	}
}

// A request that timed out leaves its keep-alive connection usable: the
// read deadline that bounds reading a body was also the deadline of
// net/http's background read of a bodiless request, which, once passed,
// cancelled the connection's context and with it every later request on
// the connection (500 "context canceled").
func TestTimeoutKeepsConnection(t *testing.T) {
	s := &Server{logger: slog.New(slog.DiscardHandler), requestTimeout: 50 * time.Millisecond,
		ready: func(context.Context) error { return nil }}
	var conn context.Context // the context of the slow request before withTimeout's
	slow := s.withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		select { // long enough for the connection's background read to fail, if it does
		case <-conn.Done():
		case <-time.After(time.Second):
		}
		s.writeError(w, r, fmt.Errorf("list: %w", r.Context().Err()))
	}))
	srv := httptest.NewServer(withRequestInfo(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("slow") {
			conn = r.Context()
			slow.ServeHTTP(w, r)
			return
		}
		if err := r.Context().Err(); err != nil {
			s.writeError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusOK)
	})))
	defer srv.Close()
	client := srv.Client()
	client.Transport.(*http.Transport).MaxConnsPerHost = 1 // one connection, kept alive
	for i, want := range []int{http.StatusGatewayTimeout, http.StatusOK, http.StatusOK} {
		path := "/api/v1/configmaps"
		if i == 0 {
			path += "?slow"
		}
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("request %d: %d, want %d: %s", i, resp.StatusCode, want, out)
		}
	}
}

// A client that announces a body and never sends it is answered 504 at
// the request timeout, and gives its in-flight slot back: it cannot hold
// one for as long as it likes.
func TestStalledBodyTimesOut(t *testing.T) {
	s := &Server{logger: slog.New(slog.DiscardHandler), requestTimeout: 100 * time.Millisecond, mutating: newInflight(2),
		ready: func(context.Context) error { return nil }}
	srv := httptest.NewServer(withRequestInfo(s.limit(s.withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := readLimited(r); err != nil {
			s.writeError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusCreated)
	})))))
	defer srv.Close()
	const path = "/api/v1/namespaces/default/configmaps"
	client := srv.Client()
	client.Timeout = time.Minute // a generous bound, for a clear failure rather than a hang

	body, stalled := io.Pipe()
	defer stalled.Close()
	resp, err := client.Post(srv.URL+path, "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout || gjson.GetBytes(out, "reason").String() != "Timeout" {
		t.Fatalf("stalled body: %d %s", resp.StatusCode, out)
	}
	// The one slot an anonymous user may hold (half of 2) is free again.
	resp, err = client.Post(srv.URL+path, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("after the stalled body: %d", resp.StatusCode)
	}
}

// A client that never reads its answer keeps the handler only until
// shortly after the request timeout: the write deadline ends the handler's
// blocked write, and its in-flight slot is free again.
func TestNeverReadAnswerTimesOut(t *testing.T) {
	s := &Server{logger: slog.New(slog.DiscardHandler), requestTimeout: 100 * time.Millisecond, readOnly: newInflight(2),
		ready: func(context.Context) error { return nil }}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	srv := httptest.NewServer(withRequestInfo(s.limit(s.withTimeout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("small") {
			w.WriteHeader(http.StatusOK)
			return
		}
		for { // a list as long as the client reads
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})))))
	defer srv.Close()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c, err := d.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /api/v1/configmaps HTTP/1.1\r\nHost: x\r\n\r\n") // and never read
	client := srv.Client()
	client.Timeout = time.Minute // a generous bound, for a clear failure rather than a hang
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		resp, err := client.Get(srv.URL + "/api/v1/configmaps?small")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return // the anonymous user's one slot (half of 2) was given back
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("the never-read list still holds its slot: %d", resp.StatusCode)
		}
	}
}
