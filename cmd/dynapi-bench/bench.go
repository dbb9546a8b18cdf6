package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/dynapi/dynapi/engine/postgres"
)

// bench is one run: the servers, the objects, the baseline and the results.
type bench struct {
	cfg      config
	cluster  *cluster
	servers  []*server
	clients  []client // one per server; the first takes the load
	widgets  widgets
	raw      *postgres.Baseline // nil: no baseline in this run
	cpu      *cpuMeter          // meters the dynapi runs of the phases
	rawCPU   *cpuMeter          // meters the baselines
	rvs      []string           // each object's resourceVersion after its last write
	progress io.Writer
	report   report
}

// newBench prepares a run against cl in a fresh namespace.
func newBench(cfg config, cl *cluster, progress io.Writer) (*bench, error) {
	b := &bench{cfg: cfg, cluster: cl, servers: cl.servers, progress: progress,
		widgets: newWidgets("bench-"+randomHex(), cfg.Size),
		report:  report{Objects: cfg.Objects, Clients: cfg.Clients, Size: cfg.Size}}
	b.cpu = newCPUMeter(cl)
	if b.cpu != nil && cl.pg == nil && cfg.PostgresPID > 0 {
		b.cpu.postmaster = cfg.PostgresPID
	}
	b.rawCPU = b.cpu.withoutServers()
	transport := newTransport(cfg.Clients)
	for _, s := range cl.servers {
		c, err := newServerClient(s.url, cfg.Token, transport)
		if err != nil {
			return nil, err
		}
		b.clients = append(b.clients, c)
	}
	return b, nil
}

// load is the client of the server that takes the load.
func (b *bench) load() client { return b.clients[0] }

// run creates the namespace, runs the phases in order and deletes the
// namespace (and whatever is left in it).
func (b *bench) run(ctx context.Context) error {
	if b.cfg.Phases["create"] {
		if err := b.runObjects(ctx); err != nil {
			return err
		}
	}
	if b.cfg.Phases["kinds"] && ctx.Err() == nil {
		b.kinds(ctx)
	}
	return ctx.Err()
}

// runObjects runs the phases on objects in a namespace of their own.
func (b *bench) runObjects(ctx context.Context) error {
	ns := b.widgets.namespace
	nsBody := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)
	if _, err := b.load().do(ctx, http.MethodPost, "/api/v1/namespaces", "application/json", nsBody, http.StatusCreated); err != nil {
		return fmt.Errorf("create namespace: %w", err)
	}
	b.phases(ctx)
	_, err := b.load().do(context.WithoutCancel(ctx), http.MethodDelete, "/api/v1/namespaces/"+ns, "", nil, http.StatusOK)
	if err != nil {
		return fmt.Errorf("delete namespace %s: %w", ns, err)
	}
	return ctx.Err()
}

// phases runs the selected phases; memory is read while all objects exist.
func (b *bench) phases(ctx context.Context) {
	steps := []struct {
		name string
		run  func(context.Context)
	}{
		{"create", b.create}, {"get", b.get}, {"list", b.list}, {"select", b.selectLabels},
		{"update", b.update}, {"patch", b.patch}, {"watch", b.watch}, {"memory", b.memory}, {"delete", b.delete},
	}
	for _, s := range steps {
		if ctx.Err() != nil {
			return
		}
		if s.name == "memory" || b.cfg.Phases[s.name] {
			s.run(ctx)
		}
	}
}

// baseline runs the raw PostgreSQL counterpart of a phase, if any.
func (b *bench) baseline(ctx context.Context, clients, n int, f op) *measurement {
	if b.raw == nil {
		return nil
	}
	m := metered(ctx, b.rawCPU, clients, n, f)
	return &m
}

// measure runs a phase's dynapi operations like parallel, with their CPU time.
func (b *bench) measure(ctx context.Context, clients, n int, f op) measurement {
	return metered(ctx, b.cpu, clients, n, f)
}

// add records a phase's results and says how it went.
func (b *bench) add(phase string, clients int, m measurement, raw *measurement) {
	b.report.add(row{Phase: phase, Clients: clients, Dynapi: m, Raw: raw})
	fmt.Fprintf(b.progress, "  %s: %s ops/s, p50 %s, p99 %s, %d error(s)\n",
		phase, rate(m.OpsPerSec()), ms(m.Percentile(50)), ms(m.Percentile(99)), m.Errors)
	for _, r := range []*measurement{&m, raw} {
		if r != nil && r.FirstErr != nil {
			fmt.Fprintf(b.progress, "  %s: first error: %v\n", phase, r.FirstErr)
		}
	}
}

// memory reads the resident memory of the servers the tool started.
func (b *bench) memory(context.Context) {
	for _, s := range b.servers {
		if s.cmd == nil {
			continue
		}
		m, err := s.memory()
		if err != nil {
			b.report.Errors = append(b.report.Errors, err.Error())
			continue
		}
		b.report.Memory = append(b.report.Memory, m)
	}
}

// randomHex returns 8 random hex digits.
func randomHex() string {
	buf := make([]byte, 4)
	rand.Read(buf) // never fails
	return hex.EncodeToString(buf)
}

// errFailed says that some operation failed; the report shows which.
var errFailed = errors.New("some operations failed")
