package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// growthStep is the state after one batch of creates: how fast the batch
// went and how much memory each server held with that many objects stored.
// A run of -n 1000000 -batch 10000 shows whether the create rate and the
// servers' memory stay flat as the store grows.
type growthStep struct {
	Objects       int     `json:"objects"` // stored after the batch
	CreatesPerSec float64 `json:"createsPerSec"`
	P99Ms         float64 `json:"p99Ms"`
	RSSBytes      []int64 `json:"rssBytes"` // of each server the tool started, in order
	// CPU is the batch's CPU time per create: on a machine shared with
	// other work the rate swings with the load, the CPU per create does not.
	CPU *cpuUse `json:"cpu,omitempty"`
}

// createBatches creates the objects batch by batch, each batch from all the
// clients at once, recording a growthStep after each; the measurement is
// of all of them.
func (b *bench) createBatches(ctx context.Context, create op) measurement {
	n, c, size := b.cfg.Objects, b.cfg.Clients, b.cfg.Batch
	before := b.cpu.sample()
	var total measurement
	for start := 0; start < n && ctx.Err() == nil; start += size {
		m := b.measure(ctx, c, min(size, n-start), func(ctx context.Context, i int) (time.Duration, error) {
			return create(ctx, start+i)
		})
		total = total.join(m)
		step := growthStep{Objects: start + m.Ops, CreatesPerSec: m.OpsPerSec(), P99Ms: msFloat(m.Percentile(99)), RSSBytes: b.rss(), CPU: m.CPU}
		b.report.Growth = append(b.report.Growth, step)
		fmt.Fprintf(b.progress, "  %d objects: %s creates/s, p99 %s, resident %s, CPU per create %s\n",
			step.Objects, rate(step.CreatesPerSec), ms(m.Percentile(99)), mibList(step.RSSBytes), step.CPU.text())
	}
	slices.Sort(total.Latencies)
	total.CPU = b.cpu.since(before, total.Ops)
	return total
}

// join adds m's operations to t's: a phase run in parts.
func (t measurement) join(m measurement) measurement {
	t.Ops += m.Ops
	t.Elapsed += m.Elapsed
	t.Latencies = append(t.Latencies, m.Latencies...)
	t.Errors += m.Errors
	if t.FirstErr == nil {
		t.FirstErr = m.FirstErr
	}
	return t
}

// rss reads the resident memory of each server the tool started; a server
// it cannot read counts 0 (the run's errors say why at the end).
func (b *bench) rss() []int64 {
	var out []int64
	for _, s := range b.servers {
		if s.cmd == nil {
			continue
		}
		m, _ := s.memory()
		out = append(out, m.RSSBytes)
	}
	return out
}

// writeGrowth prints the create rate and memory after each batch, and how
// the last batch compares with the first.
func (r *report) writeGrowth(w io.Writer) error {
	if len(r.Growth) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\ncreate in batches (rate of each batch, resident memory after it):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "objects\tcreates/s\tp99\tresident\tCPU per create\t")
	for _, s := range r.Growth {
		fmt.Fprintf(tw, "%d\t%s\t%.2fms\t%s\t%s\t\n", s.Objects, rate(s.CreatesPerSec), s.P99Ms, mibList(s.RSSBytes), s.CPU.text())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	first, last := r.Growth[0], r.Growth[len(r.Growth)-1]
	_, err := fmt.Fprintf(w, "create rate at %d objects / at %d: %.2f\n", last.Objects, first.Objects, last.CreatesPerSec/first.CreatesPerSec)
	return err
}

// mibList formats resident sizes: "70.1 MiB, 60.3 MiB".
func mibList(sizes []int64) string {
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = mib(s)
	}
	return strings.Join(parts, ", ")
}

// writePagedRSS prints the least and the most resident memory of each
// server read during the paged lists.
func (r *report) writePagedRSS(w io.Writer) {
	if len(r.PagedRSS) == 0 {
		return
	}
	fmt.Fprintf(w, "\nresident memory during the paged lists (%d readings, every %d pages):", len(r.PagedRSS), rssEvery)
	for i := range r.PagedRSS[0] {
		lo, hi := r.PagedRSS[0][i], r.PagedRSS[0][i]
		for _, s := range r.PagedRSS[1:] {
			lo, hi = min(lo, s[i]), max(hi, s[i])
		}
		fmt.Fprintf(w, " %s %s–%s", serverName(i), mib(lo), mib(hi))
	}
	fmt.Fprintln(w)
}

// text is "dynapi 120 µs, postgres 110 µs", each part that is known.
func (u *cpuUse) text() string {
	if u == nil {
		return "-"
	}
	return fmt.Sprintf("dynapi %s µs, postgres %s µs", micros(u.DynapiUs), micros(u.PostgresUs))
}
