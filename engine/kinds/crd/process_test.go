package crd

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/kinds/namespace"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/wait"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// process is one dynapi process over a shared database: its own Store,
// registry Reloader, Controller and HTTP API, as Main wires them.
type process struct {
	t     *testing.T
	url   string
	store *postgres.Store
}

// startProcess starts a process on the database at dbURL, serving the
// shipped definition files, until the test ends.
func startProcess(t *testing.T, dbURL string) *process {
	t.Helper()
	return startProcessWith(t, dbURL, shipped)
}

// startProcessWith is startProcess serving the definition files given.
func startProcessWith(t *testing.T, dbURL string, files fs.FS) *process {
	t.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(store.Close)
	service := resource.New(store)
	namespace.Register(service)
	defs := newDefinitions(t, files)
	if err := namespace.Ensure(ctx, service, defs.Load(), "default"); err != nil {
		t.Fatalf("create default namespace: %v", err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	c := New(service, defs, logger)
	c.Retry = 50 * time.Millisecond
	if err := c.Sync(ctx); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx)
	}()
	srv := httptest.NewServer(httpapi.New(service, defs, httpapi.Options{Ready: store.Ping, Logger: logger}))
	t.Cleanup(func() {
		srv.Close()
		cancel()
		<-done
	})
	return &process{t: t, url: srv.URL, store: store}
}

// do sends a request with a JSON body (none when body is ""; a merge patch
// for PATCH) and returns
// the status code and the body of the answer.
func (p *process) do(method, path, body string) (int, []byte) {
	p.t.Helper()
	var r io.Reader
	if body != "" {
		r = bytes.NewReader([]byte(body))
	}
	req, err := http.NewRequest(method, p.url+path, r)
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if method == http.MethodPatch {
		req.Header.Set("Content-Type", resource.MergePatch)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatalf("%s %s: read: %v", method, path, err)
	}
	return resp.StatusCode, out
}

// must sends a request and fails the test unless it is answered with want.
func (p *process) must(want int, method, path, body string) []byte {
	p.t.Helper()
	code, out := p.do(method, path, body)
	if code != want {
		p.t.Fatalf("%s %s = %d, want %d: %s", method, path, code, want, out)
	}
	return out
}

// spread is the time a definition has to reach every process.
const spread = 2 * time.Second

// answers waits until path answers code on every process.
func answers(t *testing.T, code int, path string, ps ...*process) {
	t.Helper()
	for i, p := range ps {
		what := "process " + string(rune('A'+i)) + ": " + path + " answers " + http.StatusText(code)
		took := wait.Eventually(t, spread, func() (bool, string) {
			got, body := p.do(http.MethodGet, path, "")
			return got == code, what + "; last: " + string(body)
		})
		t.Logf("%s after %v", what, took.Round(time.Millisecond))
	}
}
