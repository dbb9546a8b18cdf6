package postgres_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/tidwall/sjson"
)

// benchObject is an object of about 1.2 KB, like the reference figures'.
func benchObject(name string) engine.Object {
	obj := newObject(pipes, "default", name, map[string]string{"app": "bench", "tier": "back"})
	obj.Body, _ = sjson.SetBytes(obj.Body, "spec.description", strings.Repeat("x", 1000))
	return obj
}

func BenchmarkCreate(b *testing.B) {
	s := newStore(b)
	createNamespace(b, s, "default")
	var n atomic.Int64
	b.SetParallelism(8) // 16 clients on 2 cores, as in the reference figures
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Create(context.Background(), benchObject(fmt.Sprint("p", n.Add(1)))); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkCreateAgainstRaw creates objects of 1.2 KB through the Store
// (store) and inserts the same bodies with the baseline's plain INSERT
// (raw), from 16 clients each, in one process: the storage layer alone
// (its one statement per create with the namespace and name checks, the
// resourceVersion and the logged event) against PostgreSQL's limit, with
// no HTTP and none of the pipeline. Compare the two ns/op.
func BenchmarkCreateAgainstRaw(b *testing.B) {
	url := pgtest.Open(b)
	s := openStore(b, url)
	createNamespace(b, s, "default")
	raw, err := postgres.OpenBaseline(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { raw.Close(context.Background()) })
	var n atomic.Int64 // names, unique across runs of -count
	run := func(b *testing.B, create func(name string, obj engine.Object) error) {
		b.SetParallelism(8) // 16 clients on 2 cores, as in the reference figures
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				name := fmt.Sprint("p", n.Add(1))
				if err := create(name, benchObject(name)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.Run("store", func(b *testing.B) {
		run(b, func(_ string, obj engine.Object) error {
			_, err := s.Create(context.Background(), obj)
			return err
		})
	})
	b.Run("raw", func(b *testing.B) {
		run(b, func(name string, obj engine.Object) error { return raw.Insert(context.Background(), name, obj.Body) })
	})
}

func BenchmarkGet(b *testing.B) {
	s := newStore(b)
	createNamespace(b, s, "default")
	const objects = 1000
	for i := range objects {
		mustCreate(b, s, benchObject(fmt.Sprint("p", i)))
	}
	var n atomic.Int64
	b.SetParallelism(8) // 16 clients on 2 cores, as in the reference figures
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := engine.ObjectKey{Resource: pipes, Namespace: "default", Name: fmt.Sprint("p", n.Add(1)%objects)}
			if _, err := s.Get(context.Background(), key); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// populate inserts n objects of about 1.2 KB straight into the database,
// labelled group=g<i%100>, and compacts their history away, as on a server
// that has run for a while. Open the Store after: one started before would
// see n writes missing from the log, and fill them with GAPs.
func populate(tb testing.TB, url string, n int) {
	tb.Helper()
	const insert = `
INSERT INTO objects (resource, namespace, name, uid, resource_version, stored_version, body, labels)
SELECT 'pipes.example.com', 'default', 'p' || i, gen_random_uuid(), rv, 'v1',
	with_resource_version(jsonb_build_object('apiVersion', 'example.com/v1', 'kind', 'Pipe',
		'metadata', jsonb_build_object('name', 'p' || i, 'namespace', 'default', 'labels', labels),
		'spec', jsonb_build_object('size', 3, 'description', repeat('x', 1000))), rv), labels
FROM (SELECT i, nextval('resource_version') AS rv,
	jsonb_build_object('app', 'bench', 'tier', 'back', 'group', 'g' || (i % 100)) AS labels
	FROM generate_series(1, {n}) i) g
ORDER BY random()` // stored in no particular order of names, as objects written over time are
	execSQL(tb, url, strings.Replace(insert, "{n}", strconv.Itoa(n), 1), `UPDATE compaction SET horizon = (SELECT last_value FROM resource_version)`,
		`VACUUM ANALYZE objects`)
}

// logged adds to the events log a row for every object, as the creates of
// the objects within the retention window leave it.
func logged(tb testing.TB, url string) {
	execSQL(tb, url, `INSERT INTO events (resource_version, resource, namespace, name, type, body, stored_version)
		SELECT resource_version, resource, namespace, name, 'ADDED', body, stored_version FROM objects`, "ANALYZE events")
}

func BenchmarkList(b *testing.B) {
	selector := []engine.Requirement{{Key: "group", Operator: engine.OpEquals, Values: []string{"g7"}}}
	tests := []struct {
		name    string
		objects int
		log     bool // the objects' creates still in the log, as right after a load
		opts    engine.ListOptions
		want    int
	}{
		{"all-10k", 10000, false, engine.ListOptions{}, 10000},
		{"all-100k", 100000, false, engine.ListOptions{}, 100000},
		{"page-500-of-100k", 100000, false, engine.ListOptions{Limit: 500}, 500},
		{"selector-1%-of-100k", 100000, false, engine.ListOptions{Labels: selector}, 1000},
		{"all-10k-logged", 10000, true, engine.ListOptions{}, 10000},
		{"selector-1%-of-100k-logged", 100000, true, engine.ListOptions{Labels: selector}, 1000},
	}
	stores := map[string]*postgres.Store{}
	parent := b
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			key := fmt.Sprint(tt.objects, tt.log)
			s := stores[key]
			if s == nil { // shared by the sub-benchmarks: it lives as long as the parent
				url := pgtest.Open(parent)
				populate(b, url, tt.objects)
				if tt.log {
					logged(b, url)
				}
				s = openStore(parent, url)
				stores[key] = s
			}
			tt.opts.Resource = pipes
			for b.Loop() {
				n := 0
				if _, err := s.List(context.Background(), tt.opts, func(engine.Object) error { n++; return nil }); err != nil || n != tt.want {
					b.Fatalf("listed %d, %v; want %d", n, err, tt.want)
				}
			}
		})
	}
}

// BenchmarkWatchLatency measures the time from the start of a create to its
// event (p50-ms, p99-ms), on the writer's Store (local) and on another Store
// on the same database (remote, another process), with one writer (idle)
// or 16. For context: from the create's return to its event (ack-*), and
// the creates' own latency (write-p99-ms).
func BenchmarkWatchLatency(b *testing.B) {
	for _, remote := range []bool{false, true} {
		for _, clients := range []int{1, 16} {
			b.Run(fmt.Sprintf("remote=%v/clients=%d", remote, clients), func(b *testing.B) {
				benchWatchLatency(b, remote, clients)
			})
		}
	}
}

func benchWatchLatency(b *testing.B, remote bool, clients int) {
	url := pgtest.Open(b)
	writer := openStore(b, url)
	reader := writer
	if remote {
		reader = openStore(b, url)
	}
	createNamespace(b, writer, "default")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := reader.Watch(ctx, engine.WatchOptions{Resource: pipes})
	if err != nil {
		b.Fatal(err)
	}
	var starts, acks sync.Map // name → time.Time
	var latencies, afterAck []time.Duration
	var writesMu sync.Mutex
	var writes []time.Duration
	received := make(chan struct{})
	go func() {
		defer close(received)
		for ev := range events {
			now := time.Now()
			start, _ := starts.Load(ev.Object.Key.Name)
			latencies = append(latencies, now.Sub(start.(time.Time)))
			if ack, ok := acks.Load(ev.Object.Key.Name); ok {
				afterAck = append(afterAck, now.Sub(ack.(time.Time)))
			}
			if len(latencies) == b.N {
				return
			}
		}
	}()
	var n atomic.Int64
	create := func() {
		name := fmt.Sprint("p", n.Add(1))
		start := time.Now()
		starts.Store(name, start)
		if _, err := writer.Create(context.Background(), benchObject(name)); err != nil {
			b.Error(err)
		}
		ack := time.Now()
		acks.Store(name, ack)
		writesMu.Lock()
		writes = append(writes, ack.Sub(start))
		writesMu.Unlock()
	}
	b.ResetTimer()
	if clients == 1 {
		for range b.N {
			create()
		}
	} else {
		b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0)))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				create()
			}
		})
	}
	<-received
	b.StopTimer()
	// GAPs that won over a writer between its nextval and its insert: retries.
	b.ReportMetric(float64(queryInt(b, url, "SELECT count(*) FROM events WHERE type = 'GAP'")), "gaps")
	b.ReportMetric(quantile(latencies, 0.5), "p50-ms")
	b.ReportMetric(quantile(latencies, 0.99), "p99-ms")
	b.ReportMetric(quantile(afterAck, 0.5), "ack-p50-ms")
	b.ReportMetric(quantile(afterAck, 0.99), "ack-p99-ms")
	b.ReportMetric(quantile(writes, 0.99), "write-p99-ms")
}

// quantile returns the q-quantile of ds in milliseconds (0 when empty).
func quantile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[int(q*float64(len(ds)-1))]) / float64(time.Millisecond)
}
