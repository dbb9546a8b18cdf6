package crd_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/kinds/crd"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

// countingStore is a process's store that counts the writes of
// CustomResourceDefinitions.
type countingStore struct {
	*postgres.Store
	creates, updates *atomic.Int32
}

func (s countingStore) Create(ctx context.Context, obj engine.Object) (engine.Object, error) {
	if obj.Key.Resource == crd.GroupResource {
		s.creates.Add(1)
	}
	return s.Store.Create(ctx, obj)
}

func (s countingStore) Update(ctx context.Context, obj engine.Object) (engine.Object, error) {
	if obj.Key.Resource == crd.GroupResource {
		s.updates.Add(1)
	}
	return s.Store.Update(ctx, obj)
}

// A first start publishes each kind of its definition files in one write:
// the definition is created with its status (Established, naming its
// file), and nothing is written after. A client's definition is created
// without the status it brings, as kube-apiserver creates one.
func TestFirstStartPublishesInOneWrite(t *testing.T) {
	var creates, updates atomic.Int32
	p := startProcessThrough(t, pgtest.Open(t), shipped, func(s *postgres.Store) engine.Store {
		return countingStore{Store: s, creates: &creates, updates: &updates}
	})
	kinds := fileKindNames(t)
	if got := creates.Load(); int(got) != len(kinds) {
		t.Fatalf("%d definitions created at start, want one for each of the %d kinds of the files", got, len(kinds))
	}
	obj := p.must(http.StatusOK, http.MethodGet, widgetsCRD, "")
	var got []string
	for _, c := range gjson.GetBytes(obj, "status.conditions").Array() {
		got = append(got, c.Get("type").Str+"="+c.Get("status").Str+":"+c.Get("reason").Str)
	}
	if want := "NamesAccepted=True:NoConflicts Established=True:InitialNamesAccepted DefinitionFile=True:ServedByDefinitionFile"; strings.Join(got, " ") != want {
		t.Fatalf("published with the conditions %v, want %s", got, want)
	}
	settled(t, p, kinds...)
	if n := updates.Load(); n != 0 {
		t.Fatalf("%d definitions written after they were created at start, want none", n)
	}

	client := strings.Replace(string(crdJSON("toys.example.com", "robots", "Robot")), `"spec":`,
		`"status":{"storedVersions":["v0"]},"spec":`, 1)
	out := p.must(http.StatusCreated, http.MethodPost, crds, client)
	if stored := gjson.GetBytes(out, "status.storedVersions").Raw; strings.Contains(stored, "v0") {
		t.Fatalf("a client's definition was created with its own status: %s", gjson.GetBytes(out, "status").Raw)
	}
}

// fileKindNames returns the definition names of the kinds the shipped
// definition files serve.
func fileKindNames(t *testing.T) []string {
	t.Helper()
	snap, problems := registry.LoadWith(shipped, nil, registry.LoadOptions{WithoutBuiltins: true})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	var names []string
	for _, r := range snap.Resources() {
		names = append(names, r.Plural+"."+r.Group)
	}
	return names
}
