package wait

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want bool
	}{
		{"waits the whole time", context.Background(), 5 * time.Millisecond, true},
		{"nothing to wait", context.Background(), -time.Second, true},
		{"context ended", ended, time.Hour, false},
		{"context ended, nothing to wait", ended, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			if got := Sleep(tt.ctx, tt.d); got != tt.want {
				t.Fatalf("Sleep = %v, want %v", got, tt.want)
			}
			if elapsed := time.Since(start); tt.want && elapsed < tt.d {
				t.Fatalf("returned after %s, before %s", elapsed, tt.d)
			}
		})
	}
}

// TestNudge: a poke ends the pause it comes before, however long; pokes
// coalesce into one; an ended context ends it with false.
func TestNudge(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		pokes  int
		pauses int // pauses of an hour that must each end at once
		want   bool
	}{
		{"poked", context.Background(), 1, 1, true},
		{"poked twice: one look", context.Background(), 2, 1, true},
		{"context ended", ended, 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := NewNudge()
			for range tt.pokes {
				n.Poke()
			}
			for range tt.pauses {
				if got := n.Pause(tt.ctx, time.Hour); got != tt.want {
					t.Fatalf("Pause = %v, want %v", got, tt.want)
				}
			}
			if len(n) != 0 {
				t.Fatalf("%d pokes left after the pauses, want none", len(n))
			}
		})
	}
}

func TestUntil(t *testing.T) {
	calls := 0
	if !Until(time.Second, func() bool { calls++; return calls == 3 }) || calls != 3 {
		t.Fatalf("Until stopped after %d calls", calls)
	}
	start := time.Now()
	if Until(30*time.Millisecond, func() bool { return false }) {
		t.Fatal("Until reported a condition that never held")
	}
	if elapsed := time.Since(start); elapsed < 30*time.Millisecond || elapsed > time.Second {
		t.Fatalf("Until gave up after %s, want 30 ms", elapsed)
	}
	calls = 0
	if Until(0, func() bool { calls++; return false }) || calls != 1 {
		t.Fatalf("Until(0) called cond %d times, want once", calls)
	}
}

// fakeTB records what Eventually reports.
type fakeTB struct{ fatal string }

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }

func TestEventually(t *testing.T) {
	var tb fakeTB
	n := 0
	Eventually(&tb, time.Second, func() (bool, string) { n++; return n == 2, "n is " + strconv.Itoa(n) })
	if tb.fatal != "" || n != 2 {
		t.Fatalf("Eventually failed (%q) or stopped after %d calls", tb.fatal, n)
	}
	Eventually(&tb, 20*time.Millisecond, func() (bool, string) { return false, "never" })
	if want := "not within 20ms: never"; tb.fatal != want {
		t.Fatalf("Eventually said %q, want %q", tb.fatal, want)
	}
}

// TestBackoff: failures in a row pause from First, doubling up to the
// interval; a pass that works pauses the interval and starts over.
func TestBackoff(t *testing.T) {
	failed := fmt.Errorf("conflict")
	steps := []struct {
		err  error
		want time.Duration
	}{
		{failed, 100 * time.Millisecond},
		{failed, 200 * time.Millisecond},
		{failed, 400 * time.Millisecond},
		{failed, 500 * time.Millisecond},
		{failed, 500 * time.Millisecond},
		{nil, 500 * time.Millisecond},
		{failed, 100 * time.Millisecond},
	}
	var b Backoff
	for i, s := range steps {
		if got := b.After(s.err, 500*time.Millisecond); got != s.want {
			t.Fatalf("step %d (err %v): pause %s, want %s", i, s.err, got, s.want)
		}
	}
	first := Backoff{First: time.Second}
	if got := first.After(failed, 10*time.Millisecond); got != 10*time.Millisecond {
		t.Fatalf("a First past the interval: pause %s, want the interval", got)
	}
}
