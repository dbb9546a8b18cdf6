package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// servedTimeout bounds how long the kinds phase waits for definitions to
// be served.
const servedTimeout = 10 * time.Minute

// crdCollection is where CustomResourceDefinitions are created.
const crdCollection = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// kindsReport is the outcome of the kinds phase: how dynapi copes with
// many definitions, as files and created through the API.
type kindsReport struct {
	Kinds int `json:"kinds"`
	// Files: a server started on Kinds definition files, which publishes
	// each file's kind as a CustomResourceDefinition (a first start), then
	// started again on the same files (all published).
	StartSeconds float64 `json:"startSeconds"` // process start to /readyz
	// StartCPU is the CPU time the process used until /readyz answered:
	// unlike StartSeconds, it hardly depends on what else the machine runs.
	StartCPU      float64   `json:"startCpuSeconds"`
	AgainSeconds  float64   `json:"againSeconds"` // the second start to /readyz
	AgainCPU      float64   `json:"againCpuSeconds"`
	FilesMemory   *memory   `json:"filesMemory,omitempty"`
	FirstDocs     []docTime `json:"firstDocs"`     // the first requests after start
	ChangedFileMs float64   `json:"changedFileMs"` // written until served, the debounce included
	AfterFile     []docTime `json:"afterFileChange"`
	// API: Kinds CRDs created through the first server.
	BaseMemory *memory `json:"baseMemory,omitempty"` // before
	APIAllSec  float64 `json:"apiAllSeconds"`        // first create until all served
	APIOneMs   float64 `json:"apiOneMs"`             // one more, created until served
	// APICPU is the CPU time used per definition from the first create
	// until all are served: unlike APIAllSec, it hardly depends on what
	// else the machine runs.
	APICPU *cpuUse `json:"apiCpuPerKind,omitempty"`
	// APILoad is /proc/loadavg at the first create and when all are
	// served, to read APIAllSec by.
	APILoad   [2]string `json:"apiLoadAverage"`
	APIMemory *memory   `json:"apiMemory,omitempty"` // after
	// SettledMemory is read settleWait after APIMemory: a server may return
	// what a burst of changes left behind once it is over.
	SettledMemory *memory   `json:"settledMemory,omitempty"`
	AfterCreate   []docTime `json:"afterCreate"`
}

// settleWait is how long after the last change the settled memory is read.
const settleWait = 2 * time.Second

// docTime is the time of the first request of a derived document after a change.
type docTime struct {
	Path string  `json:"path"`
	Ms   float64 `json:"ms"`
}

// kinds runs the kinds phase: files first, on a server of their own, then
// the same number created through the API of the first server.
func (b *bench) kinds(ctx context.Context) {
	n := b.cfg.kindCount()
	b.report.Kinds = &kindsReport{Kinds: n}
	fmt.Fprintf(b.progress, "kinds: %d definitions as files\n", n)
	if err := b.kindFiles(ctx, n); err != nil {
		b.report.Errors = append(b.report.Errors, "kinds (files): "+err.Error())
	}
	fmt.Fprintf(b.progress, "kinds: %d definitions through the API\n", n)
	if err := b.kindAPI(ctx, n); err != nil {
		b.report.Errors = append(b.report.Errors, "kinds (API): "+err.Error())
	}
}

// kindFiles starts a server on n definition files, changes one and times
// how long until it serves the change.
func (b *bench) kindFiles(ctx context.Context, n int) error {
	if b.cluster.bin == "" {
		return errors.New("needs servers the tool starts (no -servers)")
	}
	dir := filepath.Join(b.cluster.tmp, "kinds-"+randomHex())
	prefix := "f" + randomHex()
	for i := range n {
		k := newGenKind(prefix, i)
		if err := writeKind(dir, k, false); err != nil {
			return err
		}
	}
	r := b.report.Kinds
	s, err := b.startTimed(ctx, "F", dir, &r.StartSeconds, &r.StartCPU)
	if s != nil {
		defer func() { _ = s.stop() }()
	}
	if err != nil {
		return err
	}
	if m, err := s.memory(); err == nil {
		r.FilesMemory = &m
	}
	fmt.Fprintf(b.progress, "  ready in %.2fs (CPU %.2fs)\n", r.StartSeconds, r.StartCPU)
	c, err := newServerClient(s.url, b.cfg.Token, http.DefaultTransport)
	if err != nil {
		return err
	}
	k := newGenKind(prefix, n/2)
	r.FirstDocs = timeDocs(ctx, c, k)
	start := time.Now()
	if err := writeKind(dir, k, true); err != nil {
		return err
	}
	if err := waitServed(ctx, c, k.path("v3")); err != nil {
		return err
	}
	r.ChangedFileMs = msFloat(time.Since(start))
	fmt.Fprintf(b.progress, "  one changed file served in %.0fms\n", r.ChangedFileMs)
	r.AfterFile = timeDocs(ctx, c, k)
	if err := s.stop(); err != nil {
		return err
	}
	again, err := b.startTimed(ctx, "F2", dir, &r.AgainSeconds, &r.AgainCPU)
	if again != nil {
		s = again // stopped by the deferred stop
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(b.progress, "  again, ready in %.2fs (CPU %.2fs)\n", r.AgainSeconds, r.AgainCPU)
	return nil
}

// startTimed starts a server on the definition files in dir and sets
// seconds to the time until it was ready, cpu to the CPU time it used
// meanwhile.
func (b *bench) startTimed(ctx context.Context, name, dir string, seconds, cpu *float64) (*server, error) {
	start := time.Now()
	s, err := startServer(ctx, name, b.cluster.bin, dir, b.cluster.databaseURL, b.cluster.tmp, b.cluster.security...)
	if err != nil {
		return s, err
	}
	*seconds = time.Since(start).Seconds()
	st, err := readStat(s.cmd.Process.Pid)
	if err != nil {
		return s, err
	}
	*cpu = float64(st.ticks) / userHZ
	return s, nil
}

// writeKind writes one definition file.
func writeKind(dir string, k genKind, extra bool) error {
	sub := filepath.Join(dir, k.group)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return err
	}
	// Written aside and renamed, as a deploy does: the reload never reads half a file.
	tmp := filepath.Join(dir, "."+k.plural+".json")
	if err := os.WriteFile(tmp, k.crd(extra), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(sub, k.plural+".json"))
}

// kindAPI creates n CRDs through the first server with the phase's
// clients, and times until all are served; then one more.
func (b *bench) kindAPI(ctx context.Context, n int) error {
	r := b.report.Kinds
	if s := b.servers[0]; s.cmd != nil {
		if m, err := s.memory(); err == nil {
			r.BaseMemory = &m
		}
	}
	prefix := "a" + randomHex()
	r.APILoad[0] = loadAverage()
	cpu := b.cpu.sample()
	start := time.Now()
	if err := b.createKinds(ctx, prefix, n); err != nil {
		return err
	}
	fmt.Fprintf(b.progress, "  %d created in %.2fs\n", n, time.Since(start).Seconds())
	for i := range n {
		if err := waitServed(ctx, b.load(), newGenKind(prefix, i).path("v1")); err != nil {
			return err
		}
	}
	r.APIAllSec = time.Since(start).Seconds()
	r.APICPU, r.APILoad[1] = b.cpu.since(cpu, n), loadAverage()
	fmt.Fprintf(b.progress, "  all served in %.2fs\n", r.APIAllSec)
	k := newGenKind(prefix, n)
	timeDocs(ctx, b.load(), newGenKind(prefix, 0)) // what a client that follows the server reads
	start = time.Now()
	if _, err := b.load().do(ctx, http.MethodPost, crdCollection, "application/json", k.crd(false), http.StatusCreated); err != nil {
		return err
	}
	if err := waitServed(ctx, b.load(), k.path("v1")); err != nil {
		return err
	}
	r.APIOneMs = msFloat(time.Since(start))
	fmt.Fprintf(b.progress, "  one more served in %.0fms\n", r.APIOneMs)
	r.AfterCreate = timeDocs(ctx, b.load(), k)
	if s := b.servers[0]; s.cmd != nil {
		if m, err := s.memory(); err == nil {
			r.APIMemory = &m
		}
		time.Sleep(settleWait)
		if m, err := s.memory(); err == nil {
			r.SettledMemory = &m
		}
	}
	if b.cluster.bin == "" { // servers of the user's: leave them as they were
		return b.deleteKinds(ctx, prefix, n+1)
	}
	return nil
}

// createKinds POSTs n CRDs with the phase's clients.
func (b *bench) createKinds(ctx context.Context, prefix string, n int) error {
	return forEachKind(ctx, b.cfg.Clients, n, func(i int) error {
		_, err := b.load().do(ctx, http.MethodPost, crdCollection, "application/json",
			newGenKind(prefix, i).crd(false), http.StatusCreated)
		return err
	})
}

// deleteKinds removes what createKinds made.
func (b *bench) deleteKinds(ctx context.Context, prefix string, n int) error {
	return forEachKind(ctx, b.cfg.Clients, n, func(i int) error {
		_, err := b.load().do(ctx, http.MethodDelete, crdCollection+"/"+newGenKind(prefix, i).name, "", nil, http.StatusOK)
		return err
	})
}

// forEachKind runs f for 0..n-1 on clients goroutines; the first error wins.
func forEachKind(ctx context.Context, clients, n int, f func(i int) error) error {
	var next atomic.Int64
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				if err := f(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(first, ctx.Err())
}

// waitServed polls a collection until it answers 200.
func waitServed(ctx context.Context, c client, path string) error {
	deadline := time.Now().Add(servedTimeout)
	for {
		code, _, err := c.wire.do(ctx, http.MethodGet, path+"?limit=1", "", nil)
		if err == nil && code == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not served after %s (last: %d %v)", path, servedTimeout, code, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// timeDocs times the first request of each derived document after a
// change: discovery, and OpenAPI v2 and v3.
func timeDocs(ctx context.Context, c client, k genKind) []docTime {
	paths := []string{"/apis", "/apis/" + k.group + "/v1", "/openapi/v3",
		"/openapi/v3/apis/" + k.group + "/v1", "/openapi/v2"}
	var out []docTime
	for _, p := range paths {
		start := time.Now()
		code, _, err := c.wire.do(ctx, http.MethodGet, p, "", nil)
		t := docTime{Path: p, Ms: msFloat(time.Since(start))}
		if err != nil || code != http.StatusOK {
			t.Ms = -1
		}
		out = append(out, t)
	}
	return out
}

// writeTable prints the kinds phase for people; nothing when it did not run.
func (r *kindsReport) writeTable(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nkinds: %d definitions (~7 KB, two versions each)\n", r.Kinds)
	fmt.Fprintf(w, "  as files: first start to ready %.2fs (CPU %.2fs, each kind published), again %.2fs (CPU %.2fs)\n",
		r.StartSeconds, r.StartCPU, r.AgainSeconds, r.AgainCPU)
	fmt.Fprintf(w, "  as files: one changed file served in %.0fms (100ms debounce included)\n", r.ChangedFileMs)
	if r.FilesMemory != nil {
		fmt.Fprintf(w, "  as files: memory when ready VmRSS %s\n", mib(r.FilesMemory.RSSBytes))
	}
	writeDocTimes(w, "  first after start:", r.FirstDocs)
	writeDocTimes(w, "  first after the changed file:", r.AfterFile)
	fmt.Fprintf(w, "  through the API: all %d served %.2fs after the first create, one more served in %.0fms\n",
		r.Kinds, r.APIAllSec, r.APIOneMs)
	fmt.Fprintf(w, "  through the API: load average %s at the first create, %s when all were served\n", r.APILoad[0], r.APILoad[1])
	if r.APICPU != nil {
		c := r.APICPU
		fmt.Fprintf(w, "  through the API: CPU per definition (µs): dynapi %s, PostgreSQL %s, tool %s\n",
			micros(c.DynapiUs), micros(c.PostgresUs), micros(c.ToolUs))
	}
	if r.BaseMemory != nil && r.APIMemory != nil {
		perKind := float64(r.APIMemory.RSSBytes-r.BaseMemory.RSSBytes) / float64(r.Kinds+1) / 1024
		fmt.Fprintf(w, "  through the API: memory VmRSS %s before, %s after (%.0f KiB per kind)\n",
			mib(r.BaseMemory.RSSBytes), mib(r.APIMemory.RSSBytes), perKind)
	}
	if r.SettledMemory != nil {
		fmt.Fprintf(w, "  through the API: memory VmRSS %s %s after the last change\n", mib(r.SettledMemory.RSSBytes), settleWait)
	}
	writeDocTimes(w, "  first after the one more:", r.AfterCreate)
}

func writeDocTimes(w io.Writer, title string, ts []docTime) {
	fmt.Fprint(w, title)
	for _, t := range ts {
		fmt.Fprintf(w, " %s %.1fms;", t.Path, t.Ms)
	}
	fmt.Fprintln(w)
}
