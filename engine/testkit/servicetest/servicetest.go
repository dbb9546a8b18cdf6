// Package servicetest gives a test of a component over the write pipeline
// what it runs on: a migrated throw-away database (pgtest), the store on
// it, a resource.Service over that store, and the definitions the
// repository ships, with the namespaces the test names created.
package servicetest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dynapi/dynapi/engine/kinds/namespace"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

// Kit is what Open opened.
type Kit struct {
	Store    *postgres.Store
	Service  *resource.Service
	Snapshot *registry.Snapshot
	url      string // of the database, for Peer
}

// Load hands out the shipped definitions: Kit is the snapshot source the
// components that follow the registry take.
func (k Kit) Load() *registry.Snapshot { return k.Snapshot }

// Open opens a Kit, closed when tb ends, with namespaces created.
func Open(tb testing.TB, namespaces ...string) Kit {
	tb.Helper()
	return OpenWithOptions(tb, postgres.Options{}, namespaces...)
}

// OpenWithOptions is Open with a store of opts: a test of what a short
// history does to a watch sets Retention and CompactInterval.
func OpenWithOptions(tb testing.TB, opts postgres.Options, namespaces ...string) Kit {
	tb.Helper()
	ctx := context.Background()
	url := pgtest.Open(tb)
	db := openStore(tb, url, opts)
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	snap, problems := registry.Load(os.DirFS(filepath.Join(root, "schemas")), os.DirFS(filepath.Join(root, "conversions")))
	if len(problems) > 0 {
		tb.Fatal(problems)
	}
	k := Kit{Store: db, Service: resource.New(db), Snapshot: snap, url: url}
	for _, ns := range namespaces {
		if err := namespace.Ensure(ctx, k.Service, snap, ns); err != nil {
			tb.Fatal(err)
		}
	}
	return k
}

// Peer opens a Kit on k's database as a second process serving the same
// data would be: its own store with opts (its own connections and
// poller), its own Service (its own cache of stored objects), k's
// definitions.
func (k Kit) Peer(tb testing.TB, opts postgres.Options) Kit {
	tb.Helper()
	db := openStore(tb, k.url, opts)
	return Kit{Store: db, Service: resource.New(db), Snapshot: k.Snapshot, url: k.url}
}

// openStore opens a store on url, closed when tb ends.
func openStore(tb testing.TB, url string, opts postgres.Options) *postgres.Store {
	tb.Helper()
	db, err := postgres.OpenWithOptions(context.Background(), url, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(db.Close)
	return db
}
