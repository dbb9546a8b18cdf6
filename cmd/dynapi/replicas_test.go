package main

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/testkit/pgtest"
	"github.com/dynapi/dynapi/internal/wait"
)

// replicaClients is how many clients write and read at once.
const replicaClients = 16

// Two processes reading from a streaming replica under 16 clients that
// write and read: every read (get; list whole, metadata-only, Table, CSV,
// paged) holds every write its client was acknowledged and never goes
// back in resourceVersion, while the replica serves, lags (replay
// paused), catches up and stops; watches on both processes see every
// write exactly once, in order; and /metrics shows reads served by the
// replica and fallbacks for lag and for errors; /readyz stays 200 with the
// replica stopped.
func TestReadsFromReplicaUnderLoad(t *testing.T) {
	db := pgtest.OpenReplicated(t)
	a := startProcess(t, "A", db.URL, "--database-read-url", db.ReadURL)
	b := startProcess(t, "B", db.URL, "--database-read-url", db.ReadURL)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	found := &faults{}
	from := listRVOf(t, a.url)
	watches := []*orderedWatch{watchFrom(t.Context(), a.url, from, found), watchFrom(t.Context(), b.url, from, found)}
	clients := startReadingClients(t.Context(), ctx, found, a.url, b.url)

	steps := []struct {
		name string
		do   func() error
	}{
		{"pause the replica's replay", func() error { return db.PauseReplay(t.Context(), true) }},
		{"resume it", func() error { return db.PauseReplay(t.Context(), false) }},
		{"stop the replica", func() error { return db.Replica.Halt(false) }},
	}
	wait.Sleep(ctx, time.Second)
	for _, step := range steps {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		wait.Sleep(ctx, time.Second)
	}
	for _, p := range []*process{a, b} {
		if code, body := httpGet(t, p.url+"/readyz"); code != http.StatusOK {
			t.Errorf("/readyz of %s with the replica stopped = %d %s; want 200: the primary takes writes", p.name, code, body)
		}
	}
	cancel()
	acked := map[string]int64{}
	reads := 0
	clients.running.Wait()
	for _, c := range clients.list {
		maps.Copy(acked, c.acked)
		reads += c.reads
	}
	found.check(t)
	t.Logf("%d writes acknowledged, %d reads checked", len(acked), reads)
	for _, w := range watches {
		w.check(t, acked)
	}
	checkReplicaMetrics(t, a.url, b.url)
}

// readingClients are clients running until their context ends.
type readingClients struct {
	list    []*readingClient
	running sync.WaitGroup
}

// startReadingClients starts replicaClients clients over bases, until
// stop ends; ctx bounds their requests.
func startReadingClients(ctx, stop context.Context, found *faults, bases ...string) *readingClients {
	cs := &readingClients{}
	transport := &http.Transport{MaxIdleConnsPerHost: replicaClients}
	for i := range replicaClients {
		c := &readingClient{name: fmt.Sprintf("c%d", i), bases: bases, http: &http.Client{Transport: transport},
			faults: found, acked: map[string]int64{}}
		cs.list = append(cs.list, c)
		cs.running.Go(func() { c.run(ctx, stop) })
	}
	return cs
}

// checkReplicaMetrics checks that the processes at bases counted reads on
// the replica, and fallbacks to the primary for lag and for errors.
func checkReplicaMetrics(t *testing.T, bases ...string) {
	t.Helper()
	sums := map[string]float64{}
	for _, base := range bases {
		_, body := httpGet(t, base+"/metrics")
		for _, line := range strings.Split(body, "\n") {
			name, value, ok := strings.Cut(line, " ")
			v, err := strconv.ParseFloat(value, 64)
			if !ok || err != nil {
				continue
			}
			switch {
			case strings.HasPrefix(name, "dynapi_storage_reads_total{") && !strings.Contains(name, `target="primary"`):
				sums["replica reads"] += v
			case strings.HasPrefix(name, "dynapi_storage_replica_fallbacks_total{") && strings.Contains(name, `reason="lag"`):
				sums["lag fallbacks"] += v
			case strings.HasPrefix(name, "dynapi_storage_replica_fallbacks_total{") && strings.Contains(name, `reason="error"`):
				sums["error fallbacks"] += v
			}
		}
	}
	t.Logf("metrics: %v", sums)
	for _, want := range []string{"replica reads", "lag fallbacks", "error fallbacks"} {
		if sums[want] == 0 {
			t.Errorf("no %s in /metrics: %v", want, sums)
		}
	}
}

// The primary killed under writers with synchronous replication, and its
// replica promoted: dynapi, given both hosts with
// target_session_attrs=read-write, follows the promoted one. No
// acknowledged write is lost, writes in flight are answered 503 with
// Retry-After, and a watch resumes without a gap or a duplicate.
func TestFailoverToPromotedReplica(t *testing.T) {
	db := pgtest.OpenReplicated(t)
	if err := db.SyncReplication(t.Context()); err != nil {
		t.Fatal(err)
	}
	p := startProcess(t, "A", db.FailoverURL)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	found := &faults{}
	from := listRVOf(t, p.url)
	w := watchFrom(t.Context(), p.url, from, found)
	load := newWriteLoad(p.url)
	load.start(ctx, "failover")
	wait.Sleep(ctx, time.Second)
	if err := db.Primary.Halt(true); err != nil {
		t.Fatalf("kill the primary: %v", err)
	}
	if err := db.Replica.Promote(); err != nil {
		t.Fatal(err)
	}
	p.waitReady(t)
	wait.Sleep(ctx, time.Second)
	cancel()
	load.wait()
	load.check(t, p.url)
	found.check(t)
	w.check(t, load.ackedAfter(from))
}
