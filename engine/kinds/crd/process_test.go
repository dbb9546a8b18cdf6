package crd_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/kinds/crd"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/wait"
)

// TestMain stops the throw-away PostgreSQL pgtest started once the tests end.
func TestMain(m *testing.M) { pgtest.Main(m) }

// shipped is the repository's schemas/ folder.
var shipped = os.DirFS("../../../schemas")

// crdJSON builds a CustomResourceDefinition (see crd.CRDJSON).
var crdJSON = crd.CRDJSON

// without is fsys without one file.
func without(t *testing.T, fsys fs.FS, file string) fs.FS {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(dir + "/" + file); err != nil {
		t.Fatal(err)
	}
	return os.DirFS(dir)
}

// process is one dynapi process over a shared database: its own Store
// and control plane (definition files, CustomResourceDefinition
// controller, HTTP API), as `dynapi serve` wires them.
type process struct {
	t       *testing.T
	url     string
	store   *postgres.Store
	schemas string // the folder of its definition files, which it follows
	stop    func() // ends it before the test does
}

// startProcess starts a process on the database at dbURL, serving the
// shipped definition files, until the test ends.
func startProcess(t *testing.T, dbURL string) *process {
	t.Helper()
	return startProcessWith(t, dbURL, shipped)
}

// startProcessWith is startProcess serving a copy of the definition
// files given; it fails the test if any has a problem.
func startProcessWith(t *testing.T, dbURL string, files fs.FS) *process {
	t.Helper()
	return startProcessThrough(t, dbURL, files, func(s *postgres.Store) engine.Store { return s })
}

// startProcessThrough is startProcessWith whose pipeline writes to
// through(its store).
func startProcessThrough(t *testing.T, dbURL string, files fs.FS, through func(*postgres.Store) engine.Store) *process {
	t.Helper()
	ctx := context.Background()
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(store.Close)
	schemas := copyDefinitions(t, files)
	cp, err := controlplane.Start(ctx, controlplane.Config{
		Service: resource.New(through(store)), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Files: &controlplane.Files{Schemas: schemas},
		HTTP:  httpapi.Options{Ready: store.Ping},
	})
	if err != nil {
		t.Fatalf("start the control plane: %v", err)
	}
	srv := httptest.NewServer(cp.API)
	stop := sync.OnceFunc(func() {
		srv.Close()
		if err := cp.Close(); err != nil {
			t.Errorf("close the control plane: %v", err)
		}
	})
	t.Cleanup(stop)
	return &process{t: t, url: srv.URL, store: store, schemas: schemas, stop: stop}
}

// copyDefinitions copies the definition files in fsys to a folder of the
// test's, which it returns; it fails the test if any has a problem.
func copyDefinitions(t *testing.T, fsys fs.FS) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	if _, problems := registry.Load(os.DirFS(dir), nil); len(problems) > 0 {
		t.Fatalf("definition files have problems: %v", problems)
	}
	return dir
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
