package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/wait"
)

// hookKey carries, in a write's context, what the beforeCommit hook does.
type hookKey struct{}

// hookAction holds a write's transaction open for sleep, then rolls it
// back when abort is set.
type hookAction struct {
	sleep time.Duration
	abort bool
	wait  <-chan struct{} // when set, also wait for it to close
}

var errAborted = errors.New("aborted by the test")

// beforeCommit is the tests' hook: it makes transactions commit out of
// resourceVersion order, or not at all.
func beforeCommit(ctx context.Context) error {
	a, _ := ctx.Value(hookKey{}).(hookAction)
	if a.wait != nil {
		<-a.wait
	}
	time.Sleep(a.sleep)
	if a.abort {
		return errAborted
	}
	return nil
}

// ack is an acknowledged write.
type ack struct {
	typ  engine.EventType
	name string
}

// ackLog records the acknowledged writes by resourceVersion.
type ackLog struct {
	mu   sync.Mutex
	acks map[int64]ack
}

func (l *ackLog) add(t *testing.T, rv int64, a ack) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, dup := l.acks[rv]; dup {
		t.Errorf("rv %d acknowledged twice", rv)
	}
	l.acks[rv] = a
}

// stateAt returns name → resourceVersion of the objects at rv.
func (l *ackLog) stateAt(rv int64) map[string]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	state := map[string]int64{}
	for r := int64(1); r <= rv; r++ {
		a, ok := l.acks[r]
		switch {
		case !ok:
		case a.typ == engine.EventDeleted:
			delete(state, a.name)
		default:
			state[a.name] = r
		}
	}
	return state
}

// writer runs random creates, updates and deletes of its own objects,
// some held open before COMMIT, some rolled back.
func writer(ctx context.Context, t *testing.T, s *postgres.Store, id string, ops int, log *ackLog) {
	objects := map[string]engine.Object{}
	rng := rand.New(rand.NewPCG(uint64(len(id)), uint64(id[len(id)-1])))
	for i := range ops {
		var a hookAction
		switch r := rng.IntN(10); {
		case r < 4:
			a.sleep = time.Duration(rng.IntN(15)) * time.Millisecond
		case r == 4:
			a.abort = true
		}
		wctx := context.WithValue(ctx, hookKey{}, a)
		var obj engine.Object
		var err error
		var typ engine.EventType
		cur, existing := pick(rng, objects)
		switch {
		case !existing || rng.IntN(3) == 0:
			typ = engine.EventAdded
			obj, err = s.Create(wctx, newObject(pipes, "default", fmt.Sprintf("%s-%d", id, i), map[string]string{"w": id}))
		case rng.IntN(2) == 0:
			typ = engine.EventModified
			obj, err = s.Update(wctx, cur)
		default:
			typ = engine.EventDeleted
			obj, err = s.Delete(wctx, cur)
		}
		if a.abort {
			if !errors.Is(err, errAborted) {
				t.Errorf("aborted %s: %v", typ, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", typ, id, err)
			return
		}
		log.add(t, obj.ResourceVersion, ack{typ, obj.Key.Name})
		if typ == engine.EventDeleted {
			delete(objects, obj.Key.Name)
		} else {
			objects[obj.Key.Name] = obj
		}
	}
}

// pick returns one of objects, if any.
func pick(rng *rand.Rand, objects map[string]engine.Object) (engine.Object, bool) {
	n := rng.IntN(len(objects) + 1)
	for _, obj := range objects {
		if n == 0 {
			return obj, true
		}
		n--
	}
	return engine.Object{}, false
}

// watcher collects the events of one watch until ctx ends.
type watcher struct {
	from   int64
	mu     sync.Mutex
	events []engine.Event
}

func (w *watcher) run(ch <-chan engine.Event) {
	for ev := range ch {
		w.mu.Lock()
		w.events = append(w.events, ev)
		w.mu.Unlock()
	}
}

// reached reports whether the watcher received an event at rv or later.
func (w *watcher) reached(rv int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.events) > 0 && w.events[len(w.events)-1].Object.ResourceVersion >= rv
}

// TestWatchConcurrentOutOfOrderCommits runs writers through two Stores (two
// processes) on one database, many of them holding their transactions open
// before COMMIT or rolling back, with watchers on both: every watcher must
// see every acknowledged write after its start exactly once, in order, and
// nothing else. Consistent lists run meanwhile and must each show the state
// at their resourceVersion exactly.
func TestWatchConcurrentOutOfOrderCommits(t *testing.T) {
	url := pgtest.Open(t)
	stores := []*postgres.Store{openStore(t, url), openStore(t, url)}
	createNamespace(t, stores[0], "default")
	for _, s := range stores {
		postgres.SetBeforeCommit(s, beforeCommit)
	}
	log := &ackLog{acks: map[int64]ack{}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var watchers []*watcher
	var watching sync.WaitGroup
	startWatch := func(s *postgres.Store, from int64) {
		w := &watcher{from: from}
		watchers = append(watchers, w)
		ch, err := s.Watch(ctx, engine.WatchOptions{Resource: pipes, ResourceVersion: from})
		if err != nil {
			t.Fatal(err)
		}
		watching.Go(func() { w.run(ch) })
	}
	first := mustCreate(t, stores[0], newObject(pipes, "default", "first", nil))
	log.add(t, first.ResourceVersion, ack{engine.EventAdded, "first"})
	for _, s := range stores {
		startWatch(s, first.ResourceVersion-1)
	}

	const writersPerStore, ops = 8, 60
	var writing sync.WaitGroup
	for i, s := range stores {
		for j := range writersPerStore {
			writing.Go(func() { writer(ctx, t, s, fmt.Sprintf("s%dw%d", i, j), ops, log) })
		}
	}
	writersDone := make(chan struct{})
	lists := listWhileWriting(ctx, t, stores, writersDone)
	time.Sleep(50 * time.Millisecond)
	for _, s := range stores { // watchers starting mid-way, from the log or the ring
		startWatch(s, currentRV(t, s))
	}
	writing.Wait()
	close(writersDone)
	lists.wg.Wait()

	var maxRV int64
	for rv := range log.acks {
		maxRV = max(maxRV, rv)
	}
	wait.Until(20*time.Second, func() bool { // checkWatcher tells what is missing
		for _, w := range watchers {
			if !w.reached(maxRV) {
				return false
			}
		}
		return true
	})
	cancel()
	watching.Wait()
	for i, w := range watchers {
		checkWatcher(t, i, w, log, maxRV)
	}
	for _, l := range lists.results() {
		want := log.stateAt(l.rv)
		if fmt.Sprint(l.state) != fmt.Sprint(want) {
			t.Errorf("list at %d (%d pages) = %v; want %v", l.rv, l.pages, l.state, want)
		}
	}
	t.Logf("%d acknowledged writes up to rv %d, %d watchers, %d lists", len(log.acks), maxRV, len(watchers), len(lists.results()))
}

// checkWatcher checks that w saw exactly the acknowledged writes after its
// start, in order.
func checkWatcher(t *testing.T, i int, w *watcher, log *ackLog, maxRV int64) {
	t.Helper()
	seen := map[int64]bool{}
	last := w.from
	for _, ev := range w.events {
		rv := ev.Object.ResourceVersion
		a, acked := log.acks[rv]
		switch {
		case ev.Type == engine.EventError:
			t.Errorf("watcher %d: error %v", i, ev.Err)
		case rv <= last:
			t.Errorf("watcher %d: rv %d after %d", i, rv, last)
		case !acked:
			t.Errorf("watcher %d: %s %s at %d was never acknowledged", i, ev.Type, ev.Object.Key.Name, rv)
		case a.typ != ev.Type || a.name != ev.Object.Key.Name:
			t.Errorf("watcher %d: %s %s at %d; acknowledged %s %s", i, ev.Type, ev.Object.Key.Name, rv, a.typ, a.name)
		case bodyRV(ev.Object.Body) != fmt.Sprint(rv):
			t.Errorf("watcher %d: body at rv %s for event %d", i, bodyRV(ev.Object.Body), rv)
		}
		seen[rv], last = true, rv
	}
	for rv := range log.acks {
		if rv > w.from && rv <= maxRV && !seen[rv] {
			t.Errorf("watcher %d (from %d): missed %s %s at %d", i, w.from, log.acks[rv].typ, log.acks[rv].name, rv)
		}
	}
}

// listResult is what one consistent list saw.
type listResult struct {
	rv    int64
	pages int
	state map[string]int64
}

// lister collects list results.
type lister struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	done []listResult
}

func (l *lister) results() []listResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done
}

// listWhileWriting lists through both Stores, whole and in pages, until
// finished is closed.
func listWhileWriting(ctx context.Context, t *testing.T, stores []*postgres.Store, finished <-chan struct{}) *lister {
	l := &lister{}
	for i, s := range stores {
		l.wg.Go(func() {
			for limit := int64(i * 7); ; limit = (limit + 5) % 30 {
				select {
				case <-finished:
					return
				default:
				}
				r, err := listState(ctx, s, limit)
				if err != nil {
					t.Errorf("list: %v", err)
					return
				}
				l.mu.Lock()
				l.done = append(l.done, r)
				l.mu.Unlock()
			}
		})
	}
	return l
}

// listState lists pipes in pages of limit (0: one page) and returns the
// state seen.
func listState(ctx context.Context, s *postgres.Store, limit int64) (listResult, error) {
	r := listResult{state: map[string]int64{}}
	opts := engine.ListOptions{Resource: pipes, Limit: limit}
	for {
		meta, err := s.List(ctx, opts, func(obj engine.Object) error {
			r.state[obj.Key.Name] = obj.ResourceVersion
			return nil
		})
		if err != nil {
			return r, err
		}
		r.rv, r.pages = meta.ResourceVersion, r.pages+1
		if meta.Continue == "" {
			return r, nil
		}
		opts.Continue = meta.Continue
	}
}

// currentRV returns the newest resourceVersion s has resolved.
func currentRV(t *testing.T, s *postgres.Store) int64 {
	t.Helper()
	meta, err := s.List(t.Context(), engine.ListOptions{Resource: pipes, ResourceVersion: "0", Limit: 1},
		func(engine.Object) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return meta.ResourceVersion
}
