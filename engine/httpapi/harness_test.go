package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/controlplane"
	"github.com/dynapi/dynapi/engine/httpapi"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/wait"
)

// gcRecheck is how often the tests' garbage collector looks besides
// after deletes: short, for dependents whose owners never existed.
const gcRecheck = 200 * time.Millisecond

// testServer is dynapi's HTTP API over a fresh database and the shipped schemas.
type testServer struct {
	t     *testing.T
	url   string
	store *postgres.Store
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	return newTestServerOptions(t, httpapi.Options{})
}

// newTestServerOptions is newTestServer built with opts; the harness sets
// their Ready and Logger.
func newTestServerOptions(t *testing.T, opts httpapi.Options) *testServer {
	t.Helper()
	var snapshots atomic.Pointer[registry.Snapshot]
	return startTestServer(t, &snapshots, snapshots.Store, opts)
}

// newTestServerWith is newTestServer serving the snapshots of snapshots,
// which it starts with the shipped schemas through store.
func newTestServerWith(t *testing.T, snapshots httpapi.Snapshots, store func(*registry.Snapshot)) *testServer {
	t.Helper()
	return startTestServer(t, snapshots, store, httpapi.Options{})
}

func startTestServer(t *testing.T, snapshots httpapi.Snapshots, store func(*registry.Snapshot), opts httpapi.Options) *testServer {
	t.Helper()
	api, db := startControlPlane(t, snapshots, store, opts)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return &testServer{t: t, url: srv.URL, store: db}
}

// startControlPlane starts the control plane over a fresh database and
// the shipped schemas, and returns its API, for a test to serve as it
// likes.
func startControlPlane(t *testing.T, snapshots httpapi.Snapshots, store func(*registry.Snapshot), opts httpapi.Options) (http.Handler, *postgres.Store) {
	t.Helper()
	return startControlPlaneOn(t, pgtest.Open(t), snapshots, store, opts)
}

// startControlPlaneOn is startControlPlane over the database at url.
func startControlPlaneOn(t testing.TB, url string, snapshots httpapi.Snapshots, store func(*registry.Snapshot), opts httpapi.Options) (http.Handler, *postgres.Store) {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(db.Close)
	snap, problems := registry.Load(os.DirFS("../../schemas"), os.DirFS("../../conversions"))
	if len(problems) > 0 {
		t.Fatalf("shipped schemas have problems: %v", problems)
	}
	store(snap)
	opts.Ready = db.Ping
	cp, err := controlplane.Start(ctx, controlplane.Config{Service: resource.New(db), Snapshots: snapshots,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), HTTP: opts, Collect: db, FieldIndexes: db,
		NamespaceRecheck: time.Minute, GCRecheck: gcRecheck})
	if err != nil {
		t.Fatalf("start the control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := cp.Close(); err != nil {
			t.Errorf("close the control plane: %v", err)
		}
	})
	return cp.API, db
}

// response is a decoded HTTP answer.
type response struct {
	code   int
	header http.Header
	body   []byte
}

// get reads a gjson path from the body.
func (r response) get(path string) gjson.Result { return gjson.GetBytes(r.body, path) }

func (r response) String() string { return string(r.body) }

// do sends one request. A non-empty contentType is set as Content-Type.
func (s *testServer) do(method, path, contentType, body string, header ...string) response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatalf("build request: %v", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("read response: %v", err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: out}
}

// mustDo sends a request and fails the test unless it answers want.
func (s *testServer) mustDo(want int, method, path, contentType, body string, header ...string) response {
	s.t.Helper()
	r := s.do(method, path, contentType, body, header...)
	if r.code != want {
		s.t.Fatalf("%s %s: code %d, want %d: %s", method, path, r.code, want, r.body)
	}
	return r
}

// create POSTs a JSON object and requires 201.
func (s *testServer) create(path string, obj string) response {
	s.t.Helper()
	return s.mustDo(http.StatusCreated, http.MethodPost, path, "application/json", obj)
}

// wantStatus checks that r is a Kubernetes Status error with code and reason.
func wantStatus(t *testing.T, r response, code int, reason string) {
	t.Helper()
	if r.code != code || r.get("kind").String() != "Status" || r.get("reason").String() != reason ||
		r.get("code").Int() != int64(code) || r.get("status").String() != "Failure" {
		t.Fatalf("want Status %d %s, got %d: %s", code, reason, r.code, r.body)
	}
	if r.header.Get("Content-Type") != "application/json" {
		t.Errorf("Status Content-Type = %q", r.header.Get("Content-Type"))
	}
}

// eventually repeats a request until done accepts its answer, for what
// the server does in the background; it fails the test after 10 seconds.
func (s *testServer) eventually(method, path string, done func(response) bool) response {
	s.t.Helper()
	var r response
	wait.Eventually(s.t, 10*time.Second, func() (bool, string) {
		r = s.do(method, path, "", "")
		return done(r), fmt.Sprintf("%s %s: still %d %s", method, path, r.code, r.body)
	})
	return r
}
