package informer_test

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/informer"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/servicetest"
	"github.com/dynapi/dynapi/internal/wait"
)

// TestSet: a Set of two resources publishes what is stored, then each
// create and delete of either through the watch, on the
// real PostgreSQL.
func TestSet(t *testing.T) {
	kit := servicetest.Open(t, "team")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cms := informer.Resource{Version: "v1", Resource: "configmaps"}
	secrets := informer.Resource{Version: "v1", Resource: "secrets"}
	target := func(r informer.Resource) resource.Target {
		res, ver, _ := kit.Snapshot.Lookup(r.Group, r.Version, r.Resource)
		return resource.Target{Resource: res, Version: ver, Namespace: "team"}
	}
	create := func(r informer.Resource, kind, name string) func() error {
		return func() error {
			body := `{"apiVersion":"v1","kind":"` + kind + `","metadata":{"name":"` + name + `"}}`
			_, err := kit.Service.Create(ctx, target(r), []byte(body), resource.WriteOptions{})
			return err
		}
	}
	remove := func(r informer.Resource, name string) func() error {
		return func() error {
			_, err := kit.Service.Delete(ctx, target(r), name, resource.DeleteOptions{})
			return err
		}
	}
	if err := create(cms, "ConfigMap", "before")(); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var last informer.Objects
	set := informer.NewSet(kit.Service, kit, slog.New(slog.DiscardHandler), []informer.Resource{cms, secrets}, func(o informer.Objects) {
		mu.Lock()
		defer mu.Unlock()
		last = o
	})
	go set.Run(ctx)
	if err := set.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name         string
		do           func() error
		cms, secrets string // the keys published, sorted, comma-separated
	}{
		{"listed", func() error { return nil }, "team/before", ""},
		{"ConfigMap created", create(cms, "ConfigMap", "after"), "team/after,team/before", ""},
		{"Secret created", create(secrets, "Secret", "s"), "team/after,team/before", "team/s"},
		{"ConfigMap deleted", remove(cms, "before"), "team/after", "team/s"},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		wait.Eventually(t, 5*time.Second, func() (bool, string) {
			mu.Lock()
			defer mu.Unlock()
			got, gotSecrets := keys(last[cms]), keys(last[secrets])
			return got == st.cms && gotSecrets == st.secrets, st.name + ": holds " + got + " and " + gotSecrets
		})
	}
}

func keys(m map[string][]byte) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ",")
}
