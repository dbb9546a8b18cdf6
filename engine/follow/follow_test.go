package follow_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/follow"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
	"github.com/dynapi/dynapi/internal/wait"
)

// TestFollower: the follower lists what is stored, then sees creates,
// updates and deletes through the watch, on the real PostgreSQL.
func TestFollower(t *testing.T) {
	kit := servicetest.Open(t, "team")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cms := follow.Resource{Version: "v1", Resource: "configmaps"}
	res, ver, _ := kit.Snapshot.Lookup("", "v1", "configmaps")
	target := resource.Target{Resource: res, Version: ver, Namespace: "team"}
	create := func(name, value string) {
		t.Helper()
		body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"k":"` + value + `"}}`
		if _, err := kit.Service.Create(ctx, target, []byte(body), resource.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("before", "1")

	var mu sync.Mutex
	var last follow.Objects
	f := follow.New(kit.Service, kit, slog.New(slog.DiscardHandler), []follow.Resource{cms}, func(o follow.Objects) {
		mu.Lock()
		defer mu.Unlock()
		last = o
	})
	go f.Run(ctx)
	if err := f.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	has := func(want ...string) func() (bool, string) {
		return func() (bool, string) {
			mu.Lock()
			defer mu.Unlock()
			got := last[cms]
			if len(got) != len(want) {
				return false, "holds " + keys(got)
			}
			for _, k := range want {
				if _, ok := got[k]; !ok {
					return false, "holds " + keys(got)
				}
			}
			return true, ""
		}
	}
	wait.Eventually(t, 5*time.Second, has("team/before"))
	create("after", "2")
	wait.Eventually(t, 5*time.Second, has("team/before", "team/after"))
	if _, err := kit.Service.Delete(ctx, target, "before", resource.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, 5*time.Second, has("team/after"))
}

func keys(m map[string][]byte) string {
	out := ""
	for k := range m {
		out += k + " "
	}
	return out
}
