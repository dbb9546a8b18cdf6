package postgres

import (
	"context"
	"sync"

	"github.com/dynapi/dynapi/engine"
)

// listGate bounds the list segments reading from PostgreSQL at once: half
// the pool in all, so that gets, writes and health checks find a
// connection however many lists are under way, and a quarter of it per
// user (engine.UserFrom; requests without one share a quarter), so that
// one user's lists leave room for everyone else's. A segment that finds
// no room waits for one: its reader holds no connection meanwhile (see
// pump), and a list waits no longer than its request may.
type listGate struct {
	all     chan struct{}
	perUser int

	mu    sync.Mutex
	users map[string]*userSlots
}

// userSlots are one user's places, kept while someone waits for or holds one.
type userSlots struct {
	slots chan struct{}
	refs  int
}

func newListGate(poolSize int) *listGate {
	return &listGate{all: make(chan struct{}, max(1, poolSize/2)), perUser: max(1, poolSize/4), users: map[string]*userSlots{}}
}

// enter waits for a place for the user of ctx and returns its release.
// Errors: ctx's.
func (g *listGate) enter(ctx context.Context) (release func(), err error) {
	name := ""
	if u, ok := engine.UserFrom(ctx); ok {
		name = u.Name
	}
	u := g.ref(name)
	select {
	case u.slots <- struct{}{}:
	case <-ctx.Done():
		g.unref(name, u)
		return nil, ctx.Err()
	}
	select {
	case g.all <- struct{}{}:
	case <-ctx.Done():
		<-u.slots
		g.unref(name, u)
		return nil, ctx.Err()
	}
	return func() { <-g.all; <-u.slots; g.unref(name, u) }, nil
}

func (g *listGate) ref(name string) *userSlots {
	g.mu.Lock()
	defer g.mu.Unlock()
	u := g.users[name]
	if u == nil {
		u = &userSlots{slots: make(chan struct{}, g.perUser)}
		g.users[name] = u
	}
	u.refs++
	return u
}

func (g *listGate) unref(name string, u *userSlots) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if u.refs--; u.refs == 0 {
		delete(g.users, name)
	}
}
