package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
)

// openReplicatedStore opens a Store on db's primary that reads from its
// replica, waiting for it at most maxLag (0: the default), with its
// metrics in the registry returned.
func openReplicatedStore(t *testing.T, db *pgtest.Replicated, maxLag time.Duration) (*postgres.Store, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	return openStoreWith(t, db.URL, postgres.Options{ReadURLs: []string{db.ReadURL}, Metrics: reg, MaxReplicaLag: maxLag}), reg
}

// patient is a replica lag that a loaded test machine never reaches: reads
// that must be served by the replica are.
const patient = time.Minute

// counters returns the values of the counter name by its labels, as
// "label=value,...", with any replica's host:port read "replica".
func counters(t testing.TB, reg *prometheus.Registry, name string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				v := l.GetValue()
				if (l.GetName() == "target" || l.GetName() == "replica") && v != "primary" {
					v = "replica"
				}
				labels = append(labels, l.GetName()+"="+v)
			}
			out[strings.Join(labels, ",")] += m.GetCounter().GetValue()
		}
	}
	return out
}

// sequence reads the resourceVersion sequence's value on the database at url.
func sequence(t *testing.T, url string) int64 {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var v int64
	if err := conn.QueryRow(t.Context(), "SELECT last_value FROM resource_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// listNames lists opts (every page) and returns the names seen and the
// first page's resourceVersion.
func listNames(t *testing.T, s *postgres.Store, opts engine.ListOptions) ([]string, int64) {
	t.Helper()
	var names []string
	var rv int64
	for {
		meta, err := s.List(t.Context(), opts, func(o engine.Object) error {
			names = append(names, o.Key.Name)
			return nil
		})
		if err != nil {
			t.Fatalf("List(%+v): %v", opts, err)
		}
		if rv == 0 {
			rv = meta.ResourceVersion
		}
		if meta.Continue == "" {
			return names, rv
		}
		opts.Continue = meta.Continue
	}
}

// TestReplicaServesReads: gets, lists (whole, metadata-only, paged) and
// the watch poller read from the replica, see every write acknowledged
// before them, and a list's resourceVersion is the primary's sequence
// value, not the replica's copy of it (which PostgreSQL logs ahead).
func TestReplicaServesReads(t *testing.T) {
	db := pgtest.OpenReplicated(t)
	s, reg := openReplicatedStore(t, db, patient)
	createNamespace(t, s, "default")
	events := mustWatch(t, s, engine.WatchOptions{Resource: pipes, Namespace: "default"})
	const n = 5
	for i := range n {
		obj := mustCreate(t, s, newObject(pipes, "default", fmt.Sprintf("p%d", i), nil))
		got, err := s.Get(t.Context(), obj.Key)
		if err != nil || got.ResourceVersion != obj.ResourceVersion {
			t.Fatalf("Get(%s) right after its create = rv %d, %v; want rv %d", obj.Key.Name, got.ResourceVersion, err, obj.ResourceVersion)
		}
	}
	for i := range n {
		if ev := <-events; ev.Object.Key.Name != fmt.Sprintf("p%d", i) {
			t.Fatalf("event %d is of %s; want p%d", i, ev.Object.Key.Name, i)
		}
	}
	primarySeq, replicaSeq := sequence(t, db.URL), sequence(t, db.ReadURL)
	if replicaSeq == primarySeq {
		t.Fatalf("the replica's sequence reads %d, as the primary's: the test proves nothing", replicaSeq)
	}
	tests := []struct {
		name string
		opts engine.ListOptions
	}{
		{"whole", engine.ListOptions{Resource: pipes}},
		{"metadata only", engine.ListOptions{Resource: pipes, MetadataOnly: true}},
		{"paged", engine.ListOptions{Resource: pipes, Namespace: "default", Limit: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names, rv := listNames(t, s, tt.opts)
			if len(names) != n || rv != primarySeq {
				t.Errorf("List = %v at rv %d; want %d objects at the primary's %d (the replica's sequence reads %d)", names, rv, n, primarySeq, replicaSeq)
			}
		})
	}
	reads := counters(t, reg, "dynapi_storage_reads_total")
	for _, op := range []string{"get", "list", "poll"} {
		if reads["op="+op+",target=replica"] == 0 {
			t.Errorf("reads by op/target = %v; want %s reads on the replica", reads, op)
		}
	}
}

// TestReplicaFallsBack: a replica that lags (replay paused) or is down is
// skipped, and the primary answers every read, right.
func TestReplicaFallsBack(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		breaks func(context.Context, *pgtest.Replicated) error
	}{
		{"lagging", "lag", func(ctx context.Context, db *pgtest.Replicated) error { return db.PauseReplay(ctx, true) }},
		{"down", "error", func(_ context.Context, db *pgtest.Replicated) error { return db.Replica.Halt(false) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := pgtest.OpenReplicated(t)
			s, reg := openReplicatedStore(t, db, 0)
			createNamespace(t, s, "default")
			mustCreate(t, s, newObject(pipes, "default", "before", nil))
			if err := tt.breaks(t.Context(), db); err != nil {
				t.Fatal(err)
			}
			obj := mustCreate(t, s, newObject(pipes, "default", "after", nil))
			got, err := s.Get(t.Context(), obj.Key)
			if err != nil || got.ResourceVersion != obj.ResourceVersion {
				t.Fatalf("Get(after) = rv %d, %v; want rv %d", got.ResourceVersion, err, obj.ResourceVersion)
			}
			if names, rv := listNames(t, s, engine.ListOptions{Resource: pipes}); len(names) != 2 || rv < obj.ResourceVersion {
				t.Errorf("List = %v at rv %d; want before and after at %d or later", names, rv, obj.ResourceVersion)
			}
			fallbacks := counters(t, reg, "dynapi_storage_replica_fallbacks_total")
			if fallbacks["reason="+tt.reason+",replica=replica"] == 0 {
				t.Errorf("fallbacks by replica/reason = %v; want some for %s", fallbacks, tt.reason)
			}
		})
	}
}
