package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
)

// TestListGate: one user's lists take at most a quarter of the pool, all
// lists at most half: another user still gets a place, and a place freed
// goes to whoever waits.
func TestListGate(t *testing.T) {
	g := newListGate(8) // 4 in all, 2 a user
	as := func(name string) context.Context {
		return engine.WithUser(context.Background(), &engine.User{Name: name})
	}
	enter := func(ctx context.Context) (func(), bool) {
		ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		release, err := g.enter(ctx)
		return release, err == nil
	}
	var held []func()
	for _, who := range []string{"alice", "alice", "bob"} {
		release, ok := enter(as(who))
		if !ok {
			t.Fatalf("%s found no place with %d held", who, len(held))
		}
		held = append(held, release)
	}
	if _, ok := enter(as("alice")); ok {
		t.Error("alice holds a third place: more than a quarter of the pool")
	}
	release, ok := enter(as("carol"))
	if !ok {
		t.Fatal("carol found no place beside alice's two and bob's one")
	}
	if _, ok := enter(as("dave")); ok {
		t.Error("dave holds a fifth place: more than half of the pool")
	}
	release()
	if _, ok := enter(as("dave")); !ok {
		t.Error("dave found no place once carol's was free")
	}
	for _, r := range held {
		r()
	}
	if len(g.users) != 1 { // dave's, still held
		t.Errorf("%d users kept, want 1", len(g.users))
	}
}
