package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/watch"
)

// TestPollerReadsBodiesOnlyForWatchedResources: the poller's read brings
// the bodies of the resources some watcher of the process wants, and only
// the resourceVersions of the others.
func TestPollerReadsBodiesOnlyForWatchedResources(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	createNamespace(t, s, "default")
	mustCreate(t, s, newObject(pipes, "default", "p1", nil))
	mustCreate(t, s, newObject(valves, "default", "v1", nil))
	nobody := postgres.Interest(s)
	if _, err := s.Watch(t.Context(), engine.WatchOptions{Resource: pipes}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   watch.Interest
		want string
	}{
		{"no watcher", nobody, "map[default:false p1:false v1:false]"},
		{"a watcher of pipes", postgres.Interest(s), "map[default:false p1:true v1:false]"},
		{"everything", watch.Everything, "map[default:true p1:true v1:true]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := postgres.PolledBodies(ctx, s, 0, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != tt.want {
				t.Errorf("bodies read: %v; want %s", got, tt.want)
			}
		})
	}
}
