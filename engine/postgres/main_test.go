package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/tidwall/gjson"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var (
	pipes      = engine.GroupResource{Group: "example.com", Resource: "pipes"}
	valves     = engine.GroupResource{Group: "example.com", Resource: "valves"}
	namespaces = engine.GroupResource{Resource: "namespaces"}
)

// newStore opens a Store on a fresh database.
func newStore(tb testing.TB) *postgres.Store {
	tb.Helper()
	return openStore(tb, pgtest.Open(tb))
}

// openStore opens a Store on the database at databaseURL.
func openStore(tb testing.TB, databaseURL string) *postgres.Store {
	tb.Helper()
	s, err := postgres.Open(context.Background(), databaseURL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// newObject builds an object the way the resource layer would.
func newObject(gr engine.GroupResource, ns, name string, labels map[string]string) engine.Object {
	meta := map[string]any{"name": name, "uid": "6f1c9e5a-0000-4000-8000-" + fmt12(name)}
	if ns != "" {
		meta["namespace"] = ns
	}
	if labels != nil {
		meta["labels"] = labels
	}
	body, _ := json.Marshal(map[string]any{
		"apiVersion": "example.com/v1", "kind": "Pipe", "metadata": meta, "spec": map[string]any{"size": 3},
	})
	return engine.Object{Key: engine.ObjectKey{Resource: gr, Namespace: ns, Name: name}, StoredVersion: "v1", Body: body}
}

// fmt12 derives 12 hex digits from s, to give each name its own uid.
func fmt12(s string) string {
	const hexDigits = "0123456789abcdef"
	var h uint64 = 14695981039346656037
	for i := range len(s) {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	out := make([]byte, 12)
	for i := range out {
		out[i] = hexDigits[h>>(4*i)&15]
	}
	return string(out)
}

// mustCreate creates obj and fails the test on error.
func mustCreate(tb testing.TB, s *postgres.Store, obj engine.Object) engine.Object {
	tb.Helper()
	got, err := s.Create(context.Background(), obj)
	if err != nil {
		tb.Fatalf("Create(%v): %v", obj.Key, err)
	}
	return got
}

// mustUpdate updates obj and fails the test on error.
func mustUpdate(tb testing.TB, s *postgres.Store, obj engine.Object) engine.Object {
	tb.Helper()
	got, err := s.Update(context.Background(), obj)
	if err != nil {
		tb.Fatalf("Update(%v): %v", obj.Key, err)
	}
	return got
}

// createNamespace creates the Namespace ns.
func createNamespace(tb testing.TB, s *postgres.Store, ns string) {
	tb.Helper()
	mustCreate(tb, s, newObject(namespaces, "", ns, nil))
}

// wantCode fails unless err carries code.
func wantCode(t *testing.T, err error, code engine.Code) *engine.Error {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error = %v (%T); want code %s", err, err, code)
	}
	return e
}

// bodyRV returns metadata.resourceVersion of body.
func bodyRV(body []byte) string {
	return gjson.GetBytes(body, "metadata.resourceVersion").String()
}
