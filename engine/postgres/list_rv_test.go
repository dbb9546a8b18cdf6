package postgres_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// TestListReadYourWrites checks that a list with resourceVersion unset
// shows a write acknowledged before it, even while a transaction that
// holds a lower resourceVersion is still in flight: the list waits for it.
func TestListReadYourWrites(t *testing.T) {
	url := pgtest.Open(t)
	slow, fast := openStore(t, url), openStore(t, url)
	createNamespace(t, fast, "default")
	postgres.SetBeforeCommit(slow, beforeCommit)
	for _, abort := range []bool{false, true} {
		t.Run("abort "+strconv.FormatBool(abort), func(t *testing.T) {
			release := make(chan struct{})
			slowName := "slow-" + strconv.FormatBool(abort)
			slowDone := make(chan error, 1)
			go func() {
				ctx := context.WithValue(context.Background(), hookKey{}, hookAction{wait: release, abort: abort})
				_, err := slow.Create(ctx, newObject(pipes, "default", slowName, nil))
				slowDone <- err
			}()
			time.Sleep(100 * time.Millisecond) // the slow write holds its resourceVersion
			acked := mustCreate(t, fast, newObject(pipes, "default", "fast-"+strconv.FormatBool(abort), nil))
			type result struct {
				keys []string
				meta engine.ListMeta
				err  error
			}
			listed := make(chan result, 1)
			go func() {
				keys, meta, err := listKeys(t, fast, engine.ListOptions{Resource: pipes})
				listed <- result{keys, meta, err}
			}()
			select {
			case r := <-listed:
				t.Fatalf("list returned %q at %d before the lower write ended", r.keys, r.meta.ResourceVersion)
			case <-time.After(200 * time.Millisecond):
			}
			close(release)
			if err := <-slowDone; (err != nil) != abort {
				t.Fatalf("slow write: %v", err)
			}
			r := <-listed
			if r.err != nil || r.meta.ResourceVersion < acked.ResourceVersion {
				t.Fatalf("list = %+v, %v; want rv at least %d", r.meta, r.err, acked.ResourceVersion)
			}
			if !slices.Contains(r.keys, "default/"+acked.Key.Name) || slices.Contains(r.keys, "default/"+slowName) == abort {
				t.Errorf("list = %q; want %s, and %s unless aborted", r.keys, acked.Key.Name, slowName)
			}
		})
	}
}

// history writes a known sequence of changes and records the state after each.
type history struct {
	t      *testing.T
	s      *postgres.Store
	states map[int64]map[string]string // rv → name → app label ("" for none)
	cur    map[string]engine.Object
	rounds int
}

func newHistory(t *testing.T, s *postgres.Store) *history {
	return &history{t: t, s: s, states: map[int64]map[string]string{}, cur: map[string]engine.Object{}}
}

// record notes the state after the write at rv.
func (h *history) record(rv int64) {
	state := map[string]string{}
	for name, obj := range h.cur {
		state[name] = labelOf(obj.Body)
	}
	h.states[rv] = state
}

func labelOf(body []byte) string {
	return gjson.GetBytes(body, "metadata.labels.app").String()
}

func (h *history) create(name, app string) {
	h.t.Helper()
	obj := mustCreate(h.t, h.s, newObject(pipes, "default", name, map[string]string{"app": app}))
	h.cur[name] = obj
	h.record(obj.ResourceVersion)
}

func (h *history) relabel(name, app string) {
	h.t.Helper()
	obj := h.cur[name]
	body, _ := sjson.SetBytes(obj.Body, "metadata.labels.app", app)
	obj, err := h.s.Update(context.Background(), engine.Object{Key: obj.Key, StoredVersion: "v1", ResourceVersion: obj.ResourceVersion, Body: body})
	if err != nil {
		h.t.Fatal(err)
	}
	h.cur[name] = obj
	h.record(obj.ResourceVersion)
}

func (h *history) delete(name string) {
	h.t.Helper()
	obj, err := h.s.Delete(context.Background(), engine.Object{Key: h.cur[name].Key})
	if err != nil {
		h.t.Fatal(err)
	}
	delete(h.cur, name)
	h.record(obj.ResourceVersion)
}

// want returns the sorted keys of the state at rv with the app label (any when "").
func (h *history) want(rv int64, app string) []string {
	var keys []string
	for name, label := range h.states[rv] {
		if app == "" || label == app {
			keys = append(keys, "default/"+name)
		}
	}
	slices.Sort(keys)
	return keys
}

// churn creates, relabels and deletes objects of h.
func (h *history) churn() {
	round := h.rounds
	h.rounds++
	r := strconv.Itoa(round)
	h.create("new-"+r+"-a", "web")
	h.create("a-new-"+r, "db")
	for i := range 20 {
		name := "o" + strconv.Itoa(i)
		switch {
		case h.cur[name].Key.Name == "":
		case (i+round)%5 == 0:
			h.delete(name)
		case (i+round)%3 == 0:
			h.relabel(name, map[bool]string{true: "web", false: "db"}[labelOf(h.cur[name].Body) == "db"])
		}
	}
}

// TestListPagesConsistent pages through lists (with and without a label
// selector) while objects are created, relabelled and deleted between
// pages: the pages together must show the state at the first page's
// resourceVersion, as must an Exact list at it afterwards.
func TestListPagesConsistent(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	h := newHistory(t, s)
	for i := range 20 {
		h.create("o"+strconv.Itoa(i), map[bool]string{true: "web", false: "db"}[i%2 == 0])
	}
	for _, app := range []string{"", "web"} {
		t.Run("app="+app, func(t *testing.T) {
			opts := engine.ListOptions{Resource: pipes, Limit: 3}
			if app != "" {
				opts.Labels = []engine.Requirement{{Key: "app", Operator: engine.OpEquals, Values: []string{app}}}
			}
			var got []string
			var rv int64
			for page := 0; ; page++ {
				keys, meta, err := listKeys(t, s, opts)
				if err != nil {
					t.Fatal(err)
				}
				if page == 0 {
					rv = meta.ResourceVersion
				}
				got = append(got, keys...)
				if meta.Continue == "" {
					break
				}
				opts.Continue = meta.Continue
				h.churn()
			}
			if want := h.want(rv, app); !slices.Equal(got, want) {
				t.Errorf("pages at %d = %q; want %q", rv, got, want)
			}
			exact := engine.ListOptions{Resource: pipes, ResourceVersion: strconv.FormatInt(rv, 10),
				ResourceVersionMatch: engine.MatchExact, Labels: opts.Labels}
			if got, _, err := listKeys(t, s, exact); err != nil || !slices.Equal(got, h.want(rv, app)) {
				t.Errorf("Exact list at %d = %q, %v; want %q", rv, got, err, h.want(rv, app))
			}
		})
	}
}

// TestListAtEveryResourceVersion lists Exact at each resourceVersion of a
// history of creates, relabels and deletes, with label selectors that the
// objects matched then but not now, and the reverse.
func TestListAtEveryResourceVersion(t *testing.T) {
	s := newStore(t)
	createNamespace(t, s, "default")
	h := newHistory(t, s)
	for i := range 20 {
		h.create("o"+strconv.Itoa(i), map[bool]string{true: "web", false: "db"}[i%2 == 0])
	}
	for range 3 {
		h.churn()
	}
	for _, rv := range slices.Sorted(maps.Keys(h.states)) {
		for _, app := range []string{"", "web", "db"} {
			opts := engine.ListOptions{Resource: pipes, ResourceVersion: strconv.FormatInt(rv, 10), ResourceVersionMatch: engine.MatchExact}
			if app != "" {
				opts.Labels = []engine.Requirement{{Key: "app", Operator: engine.OpIn, Values: []string{app}}}
			}
			got, meta, err := listKeys(t, s, opts)
			if err != nil || meta.ResourceVersion != rv || !slices.Equal(got, h.want(rv, app)) {
				t.Fatalf("list at %d app=%q = %q (rv %d), %v; want %q", rv, app, got, meta.ResourceVersion, err, h.want(rv, app))
			}
		}
	}
}

func TestListResourceVersionMatch(t *testing.T) {
	s := newStore(t)
	postgres.SetFreshWait(s, 100*time.Millisecond)
	createNamespace(t, s, "default")
	a := mustCreate(t, s, newObject(pipes, "default", "a", nil)).ResourceVersion
	b := mustCreate(t, s, newObject(pipes, "default", "b", nil)).ResourceVersion
	waitWatermark(t, s, b)
	rv := func(n int64) string { return strconv.FormatInt(n, 10) }
	tests := []struct {
		name   string
		opts   engine.ListOptions
		want   []string
		wantRV int64
		code   engine.Code
	}{
		{"unset", engine.ListOptions{}, []string{"a", "b"}, b, ""},
		{"0", engine.ListOptions{ResourceVersion: "0"}, []string{"a", "b"}, b, ""},
		{"0 NotOlderThan", engine.ListOptions{ResourceVersion: "0", ResourceVersionMatch: engine.MatchNotOlderThan}, []string{"a", "b"}, b, ""},
		{"not older than a", engine.ListOptions{ResourceVersion: rv(a)}, []string{"a", "b"}, b, ""},
		{"exact a", engine.ListOptions{ResourceVersion: rv(a), ResourceVersionMatch: engine.MatchExact}, []string{"a"}, a, ""},
		{"legacy exact with a limit", engine.ListOptions{ResourceVersion: rv(a), Limit: 5}, []string{"a"}, a, ""},
		{"unset NotOlderThan (watch list)", engine.ListOptions{ResourceVersionMatch: engine.MatchNotOlderThan}, []string{"a", "b"}, b, ""},
		{"not older than the future", engine.ListOptions{ResourceVersion: rv(b + 10)}, nil, 0, engine.CodeTimeout},
		{"exact future", engine.ListOptions{ResourceVersion: rv(b + 10), ResourceVersionMatch: engine.MatchExact}, nil, 0, engine.CodeTimeout},
		{"exact 0", engine.ListOptions{ResourceVersion: "0", ResourceVersionMatch: engine.MatchExact}, nil, 0, engine.CodeBadRequest},
		{"bad match", engine.ListOptions{ResourceVersion: rv(a), ResourceVersionMatch: "Newest"}, nil, 0, engine.CodeBadRequest},
		{"bad rv", engine.ListOptions{ResourceVersion: "x"}, nil, 0, engine.CodeBadRequest},
		{"rv with continue", engine.ListOptions{ResourceVersion: rv(a), Continue: "e30"}, nil, 0, engine.CodeBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Resource = pipes
			got, meta, err := listKeys(t, s, tt.opts)
			if tt.code != "" {
				e := wantCode(t, err, tt.code)
				if tt.code == engine.CodeTimeout && (len(e.Causes) != 1 || e.Causes[0].Type != "ResourceVersionTooLarge" ||
					e.Message != "Timeout: Too large resource version: "+rv(b+10)+", current: "+rv(b)) {
					t.Errorf("timeout error %+v", e)
				}
				return
			}
			if err != nil || !slices.Equal(got, prefixed("default/", tt.want)) || meta.ResourceVersion != tt.wantRV {
				t.Errorf("list = %q at %d, %v; want %q at %d", got, meta.ResourceVersion, err, tt.want, tt.wantRV)
			}
		})
	}
}

// TestListExpired lists at resourceVersions older than the history kept.
func TestListExpired(t *testing.T) {
	s := openStoreWith(t, pgtest.Open(t), postgres.Options{Retention: time.Millisecond})
	createNamespace(t, s, "default")
	for _, name := range []string{"a", "b", "c"} {
		mustCreate(t, s, newObject(pipes, "default", name, nil))
	}
	_, first, err := listKeys(t, s, engine.ListOptions{Resource: pipes, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	last := mustCreate(t, s, newObject(pipes, "default", "d", nil)).ResourceVersion
	waitWatermark(t, s, last)
	if err := postgres.Compact(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	exact := engine.ListOptions{Resource: pipes, ResourceVersion: strconv.FormatInt(first.ResourceVersion, 10), ResourceVersionMatch: engine.MatchExact}
	_, _, err = listKeys(t, s, exact)
	if e := wantCode(t, err, engine.CodeExpired); e.Message != "The resourceVersion for the provided list is too old." {
		t.Errorf("Exact: %q", e.Message)
	}
	_, _, err = listKeys(t, s, engine.ListOptions{Resource: pipes, Limit: 1, Continue: first.Continue})
	e := wantCode(t, err, engine.CodeExpired)
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Continue == "" || len(e.Message) < 100 {
		t.Fatalf("continue: %+v; want kube's message and a fresh token", e)
	}
	got := paginate(t, s, engine.ListOptions{Resource: pipes, Limit: 1, Continue: ee.Continue}, last)
	if want := []string{"default/b", "default/c", "default/d"}; !slices.Equal(got, want) {
		t.Errorf("from the fresh token: %q; want %q (the current state after a)", got, want)
	}
}
