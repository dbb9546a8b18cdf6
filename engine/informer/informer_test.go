package informer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
	"github.com/dynapi/dynapi/internal/wait"
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
	r.add("Listed " + strings.Join(slices.Sorted(maps.Keys(objects)), ","))
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
	rec.waitFor(t, "Listed default/a", "Settle", "Reconcile")
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

// configMaps is the ConfigMaps of namespace default in kit, with the
// names created.
func configMaps(t *testing.T, kit servicetest.Kit, names ...string) resource.Target {
	t.Helper()
	r, v, ok := kit.Snapshot.Lookup("", "v1", "configmaps")
	if !ok {
		t.Fatal("no configmaps")
	}
	target := resource.Target{Resource: r, Version: v, Namespace: "default"}
	for _, name := range names {
		body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`
		if _, err := kit.Service.Create(context.Background(), target, []byte(body), resource.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return target
}

// compactedPast waits until a watch from rv ends in an Expired error.
func compactedPast(t *testing.T, kit servicetest.Kit, target resource.Target, rv int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // a bound, not a measure
	for !expired(kit, target, rv) {
		if time.Now().After(deadline) {
			t.Fatalf("a watch from %d is not expired", rv)
		}
	}
}

// expired says whether a watch from rv fails as too old: its first event
// is that error, else it sends nothing within a poll's pause.
func expired(kit servicetest.Kit, target resource.Target, rv int64) bool {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := kit.Service.Watch(ctx, target, resource.WatchOptions{
		List: engine.ListOptions{ResourceVersion: strconv.FormatInt(rv, 10)}})
	if err != nil {
		return engine.ErrorCode(err) == engine.CodeExpired
	}
	select {
	case ev := <-events:
		return ev.Type == engine.EventError && engine.ErrorCode(ev.Err) == engine.CodeExpired
	case <-time.After(20 * time.Millisecond):
		return false
	}
}

// TestInformerLists: Run lists first when nothing was listed, lists again
// when its watch fails (here: its resourceVersion was compacted), signals
// ready after the first list, and returns when its context ends.
func TestInformerLists(t *testing.T) {
	tests := []struct {
		name  string
		store postgres.Options
		retry time.Duration // an hour: Run must not wait to list
		// before runs ahead of Run, on an informer of ConfigMap a.
		before func(t *testing.T, kit servicetest.Kit, in *Informer, rec *recorder)
		want   []string
	}{
		{
			name: "Run without Sync", retry: time.Hour,
			before: func(*testing.T, servicetest.Kit, *Informer, *recorder) {},
			want:   []string{"Listed default/a", "Settle", "Reconcile"},
		},
		{
			name: "expired resourceVersion", retry: time.Millisecond,
			store: postgres.Options{Retention: time.Millisecond, CompactInterval: 10 * time.Millisecond},
			before: func(t *testing.T, kit servicetest.Kit, in *Informer, rec *recorder) {
				if err := in.Sync(context.Background()); err != nil {
					t.Fatal(err)
				}
				rec.waitFor(t, "Listed default/a", "Settle", "Reconcile")
				target := configMaps(t, kit, "b") // not seen: the watch from the list's resourceVersion fails
				compactedPast(t, kit, target, in.rv)
			},
			want: []string{"Listed default/a,default/b", "Settle", "Reconcile"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kit := servicetest.OpenWithOptions(t, tt.store, "default")
			target := configMaps(t, kit, "a")
			rec := &recorder{target: target}
			never := func() <-chan struct{} { return nil }
			in := New(kit.Service, never, rec, slog.New(slog.DiscardHandler), "ConfigMaps")
			in.Retry = tt.retry
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cancelled, cancelNow := context.WithCancel(ctx)
			cancelNow()
			if err := in.WaitSynced(cancelled); err == nil {
				t.Fatal("WaitSynced before any list: nil, want an error")
			}
			tt.before(t, kit, in, rec)
			done := make(chan struct{})
			go func() { in.Run(ctx); close(done) }()
			rec.waitFor(t, tt.want...)
			bounded, stop := context.WithTimeout(ctx, 10*time.Second) // a bound, not a measure
			defer stop()
			if err := in.WaitSynced(bounded); err != nil {
				t.Fatal(err)
			}
			cancel()
			<-done
		})
	}
}

// heldRecorder is a recorder whose second Reconcile (after the first
// event) waits until hold is closed, so that a burst of events piles up
// behind it.
type heldRecorder struct {
	*recorder
	hold       chan struct{}
	reconciles int
}

func (h *heldRecorder) Reconcile(ctx context.Context, t resource.Target) {
	if h.reconciles++; h.reconciles == 2 {
		<-h.hold
	}
	h.recorder.Reconcile(ctx, t)
}

// TestInformerSettlesABurstOnce: a burst of events, which the watch hands
// on in pieces of 16, costs one Settle, not one per piece.
func TestInformerSettlesABurstOnce(t *testing.T) {
	kit := servicetest.Open(t, "default")
	target := configMaps(t, kit)
	rec := &heldRecorder{recorder: &recorder{target: target}, hold: make(chan struct{})}
	never := func() <-chan struct{} { return nil }
	in := New(kit.Service, never, rec, slog.New(slog.DiscardHandler), "ConfigMaps")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := in.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "Listed ", "Settle", "Reconcile")
	done := make(chan struct{})
	go func() { in.Run(ctx); close(done) }()
	configMaps(t, kit, "first")
	rec.waitFor(t, "Put first", "Settle") // its Reconcile holds the burst back
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("c%02d", i)
	}
	configMaps(t, kit, names...)
	close(rec.hold)
	var calls []string
	wait.Eventually(t, 10*time.Second, func() (bool, string) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		calls = slices.Clone(rec.calls)
		last := slices.Index(calls, "Put c99")
		return last >= 0 && slices.Contains(calls[last:], "Reconcile"), "calls: " + strings.Join(calls, "; ")
	})
	cancel()
	<-done
	// Why 3 at worst: a machine that stalls the watch for burstGap, or
	// for maxBurst, splits the burst; in pieces, 100 events are 6 or more.
	if settles := countOf(calls, "Settle"); settles > 3 {
		t.Errorf("%d Settles for one burst of 100 events, want 1: %s", settles, strings.Join(calls, "; "))
	}
}

func countOf(calls []string, call string) int {
	n := 0
	for _, c := range calls {
		if c == call {
			n++
		}
	}
	return n
}
