package watch

import (
	"fmt"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
)

func TestInterestGrowsWithSubscribers(t *testing.T) {
	b := New(0, (&history{}).replay, Options{})
	defer b.Close()
	before := b.Interest()
	b.Subscribe(t.Context(), engine.WatchOptions{Resource: pipes})
	b.Subscribe(t.Context(), engine.WatchOptions{Resource: pipes, Namespace: "a"})
	withPipes := b.Interest()
	b.Subscribe(t.Context(), engine.WatchOptions{})
	withAll := b.Interest()
	tests := []struct {
		name             string
		in               Interest
		pipes, valves    bool
		all              bool
		resources        int
		newerThanOneShot bool
	}{
		{"nobody subscribed", before, false, false, false, 0, false},
		{"two subscribers of pipes", withPipes, true, false, false, 1, true},
		{"and one of everything", withAll, true, true, true, 1, true},
		{"Everything", Everything, true, true, true, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.in.Wants(pipes) != tt.pipes || tt.in.Wants(valves) != tt.valves || tt.in.All() != tt.all ||
				len(tt.in.Resources()) != tt.resources {
				t.Errorf("pipes %v, valves %v, all %v, %d resources", tt.in.Wants(pipes), tt.in.Wants(valves), tt.in.All(), len(tt.in.Resources()))
			}
			if newer := tt.in.Generation() > before.Generation(); newer != tt.newerThanOneShot {
				t.Errorf("generation %d, before any subscriber %d", tt.in.Generation(), before.Generation())
			}
		})
	}
	if withPipes.Generation() == withAll.Generation() {
		t.Error("adding everything left the generation as it was")
	}
}

// TestEventsLeftOutComeFromHistory: events the storage left out, because
// nobody wanted them when it read them, are replayed from the storage,
// including for a subscriber that came while they were being read.
func TestEventsLeftOutComeFromHistory(t *testing.T) {
	tests := []struct {
		name      string
		subscribe func(t *testing.T, b *Broadcaster) <-chan engine.Event
	}{
		{"subscribed after the publish", func(t *testing.T, b *Broadcaster) <-chan engine.Event {
			b.Publish(b.Interest(), nil, 3) // nobody wanted pipes 1..3
			return b.Subscribe(t.Context(), engine.WatchOptions{Resource: pipes})
		}},
		{"subscribed while the storage read", func(t *testing.T, b *Broadcaster) <-chan engine.Event {
			in := b.Interest() // taken before the subscriber came
			ch := b.Subscribe(t.Context(), engine.WatchOptions{Resource: pipes})
			time.Sleep(10 * time.Millisecond) // it reads the empty ring and waits: it is live
			b.Publish(in, nil, 3)
			return ch
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &history{}
			b := New(0, h.replay, Options{})
			defer b.Close()
			h.add(event(pipes, "a", 1), event(pipes, "a", 2), event(pipes, "a", 3))
			ch := tt.subscribe(t, b)
			if !b.Interest().Wants(pipes) {
				t.Fatal("pipes not wanted after a subscriber asked for them")
			}
			four := event(pipes, "a", 4)
			h.add(four)
			b.Publish(b.Interest(), []engine.Event{four}, 4) // wanted now: from the ring
			got := receive(t, ch, 4)
			if fmt.Sprint(rvs(got)) != "[1 2 3 4]" || h.replays != 1 {
				t.Fatalf("got %v with %d replays; want [1 2 3 4] with 1", rvs(got), h.replays)
			}
		})
	}
}
