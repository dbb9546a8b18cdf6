package informer

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
)

// recorder is a Handler that writes down each call, as "Listed a,b",
// "Put c", "Remove a", "Settle", "Reconcile".
type recorder struct {
	target resource.Target
	mu     sync.Mutex
	calls  []string
}

func (r *recorder) Target() (resource.Target, bool) { return r.target, true }
func (r *recorder) Listed(objects map[string][]byte) {
	names := make([]string, 0, len(objects))
	for name := range objects {
		names = append(names, name)
	}
	r.add("Listed " + strings.Join(names, ","))
}
func (r *recorder) Put(obj []byte)    { r.add("Put " + gjson.GetBytes(obj, "metadata.name").Str) }
func (r *recorder) Remove(obj []byte) { r.add("Remove " + gjson.GetBytes(obj, "metadata.name").Str) }
func (r *recorder) Settle()           { r.add("Settle") }
func (r *recorder) Reconcile(context.Context, resource.Target) {
	r.add("Reconcile")
}

func (r *recorder) add(call string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call)
}

// waitFor waits until the calls made end with want, and forgets them.
func (r *recorder) waitFor(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // a bound, not a measure
	for {
		r.mu.Lock()
		got := strings.Join(r.calls, "; ")
		done := strings.HasSuffix(got, strings.Join(want, "; "))
		if done {
			r.calls = nil
		}
		r.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("calls: %s; want them to end with %s", got, strings.Join(want, "; "))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Sync lists, settles and reconciles; Run hands on each event, settles
// once after it, reconciles after that, and reconciles on a swap alone.
func TestInformer(t *testing.T) {
	kit := servicetest.Open(t, "default")
	r, v, ok := kit.Snapshot.Lookup("", "v1", "configmaps")
	if !ok {
		t.Fatal("no configmaps")
	}
	target := resource.Target{Resource: r, Version: v, Namespace: "default"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	create := func(name string) {
		t.Helper()
		if _, err := kit.Service.Create(ctx, target, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+name+`"}}`), resource.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("a")
	swapped := make(chan struct{})
	var swapMu sync.Mutex
	changed := func() <-chan struct{} {
		swapMu.Lock()
		defer swapMu.Unlock()
		return swapped
	}
	rec := &recorder{target: target}
	in := New(kit.Service, changed, rec, slog.New(slog.NewTextHandler(io.Discard, nil)), "ConfigMaps")
	if err := in.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "Listed a", "Settle", "Reconcile")
	done := make(chan struct{})
	go func() { in.Run(ctx); close(done) }()

	create("b")
	rec.waitFor(t, "Put b", "Settle", "Reconcile")
	if _, err := kit.Service.Delete(ctx, target, "a", resource.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "Remove a", "Settle", "Reconcile")
	swapMu.Lock()
	close(swapped)
	swapped = make(chan struct{})
	swapMu.Unlock()
	rec.waitFor(t, "Reconcile")
	cancel()
	<-done
}
