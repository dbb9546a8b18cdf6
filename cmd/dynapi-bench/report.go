package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// report is the outcome of a run.
type report struct {
	Objects  int          `json:"objects"`
	Clients  int          `json:"clients"`
	Size     int          `json:"size"`
	Database string       `json:"database"` // how the database was provided
	Rows     []row        `json:"phases"`
	Memory   []memory     `json:"memory"`           // while all objects were stored
	Growth   []growthStep `json:"growth,omitempty"` // with -batch: after each batch of creates
	// PagedRSS is the servers' resident memory read every rssEvery pages
	// of the paged lists.
	PagedRSS [][]int64    `json:"pagedRSS,omitempty"`
	Kinds    *kindsReport `json:"kinds,omitempty"`
	Routing  *routing     `json:"routing,omitempty"` // with -replicas
	Errors   []string     `json:"errors,omitempty"`
}

// row is one phase: dynapi's figures and, where there is one, the baseline's.
type row struct {
	Phase   string
	Clients int
	Dynapi  measurement
	Raw     *measurement
}

func (r *report) add(x row) { r.Rows = append(r.Rows, x) }

// failures counts every failed operation and problem of the run.
func (r *report) failures() int {
	n := len(r.Errors)
	for _, x := range r.Rows {
		n += x.Dynapi.Errors
		if x.Raw != nil {
			n += x.Raw.Errors
		}
	}
	return n
}

// ratio is dynapi's throughput over the baseline's; 0 without a baseline.
func (x row) ratio() float64 {
	if x.Raw == nil || x.Raw.OpsPerSec() == 0 {
		return 0
	}
	return x.Dynapi.OpsPerSec() / x.Raw.OpsPerSec()
}

// writeTable prints the report for people.
func (r *report) writeTable(w io.Writer) error {
	fmt.Fprintf(w, "dynapi-bench: %d objects of ~%d bytes, %d clients; database: %s\n\n", r.Objects, r.Size, r.Clients, r.Database)
	if len(r.Rows) > 0 {
		if err := r.writeRows(w); err != nil {
			return err
		}
	}
	if err := r.writeGrowth(w); err != nil {
		return err
	}
	r.writePagedRSS(w)
	for _, m := range r.Memory {
		fmt.Fprintf(w, "\nmemory of dynapi %s with %d objects stored: VmRSS %s, VmHWM %s", m.Server, r.Objects, mib(m.RSSBytes), mib(m.HWMBytes))
	}
	fmt.Fprintln(w)
	r.Routing.writeTable(w)
	r.Kinds.writeTable(w)
	for _, e := range r.Errors {
		fmt.Fprintln(w, "error:", e)
	}
	_, err := fmt.Fprintf(w, "\nfailed operations: %d\n", r.failures())
	return err
}

// writeRows prints the phases on objects and their CPU time.
func (r *report) writeRows(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "phase\tclients\tops\terrors\tops/s\tp50\tp99\traw ops/s\traw p50\tratio\t")
	for _, x := range r.Rows {
		m := x.Dynapi
		rawOps, rawP50, ratio := "-", "-", "-"
		if x.Raw != nil {
			rawOps = rate(x.Raw.OpsPerSec())
			rawP50 = ms(x.Raw.Percentile(50))
			ratio = fmt.Sprintf("%.2f", x.ratio())
			m.Errors += x.Raw.Errors
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", x.Phase, x.Clients, m.Ops, m.Errors,
			rate(m.OpsPerSec()), ms(m.Percentile(50)), ms(m.Percentile(99)), rawOps, rawP50, ratio)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return r.writeCPUTable(w)
}

// writeCPUTable prints the CPU time per operation of the phases that have
// it: of the tool itself, the dynapi servers and PostgreSQL (all its
// processes), for the dynapi run and for the baseline.
func (r *report) writeCPUTable(w io.Writer) error {
	if !slices.ContainsFunc(r.Rows, func(x row) bool { return x.Dynapi.CPU != nil }) {
		return nil
	}
	fmt.Fprintln(w, "\nCPU per operation (µs; total: of the parts shown, -: unknown):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "phase\ttool\tdynapi\tpostgres\ttotal\traw tool\traw postgres\traw total\t")
	for _, x := range r.Rows {
		c := x.Dynapi.CPU
		if c == nil {
			continue
		}
		rawTool, rawPG, rawTotal := "-", "-", "-"
		if x.Raw != nil && x.Raw.CPU != nil {
			rc := x.Raw.CPU
			rawTool, rawPG, rawTotal = micros(rc.ToolUs), micros(rc.PostgresUs), micros(&rc.TotalUs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", x.Phase, micros(c.ToolUs), micros(c.DynapiUs),
			micros(c.PostgresUs), micros(&c.TotalUs), rawTool, rawPG, rawTotal)
	}
	return tw.Flush()
}

// rowJSON is a row as -json prints it: durations in milliseconds.
type rowJSON struct {
	Phase     string           `json:"phase"`
	Clients   int              `json:"clients"`
	Ops       int              `json:"ops"`
	Errors    int              `json:"errors"`
	Seconds   float64          `json:"seconds"`
	OpsPerSec float64          `json:"opsPerSec"`
	P50Ms     float64          `json:"p50Ms"`
	P99Ms     float64          `json:"p99Ms"`
	CPU       *cpuUse          `json:"cpu,omitempty"` // per operation
	Raw       *measurementJSON `json:"raw,omitempty"`
	Ratio     float64          `json:"ratio,omitempty"`
}

type measurementJSON struct {
	Ops       int     `json:"ops"`
	Errors    int     `json:"errors"`
	OpsPerSec float64 `json:"opsPerSec"`
	P50Ms     float64 `json:"p50Ms"`
	P99Ms     float64 `json:"p99Ms"`
	CPU       *cpuUse `json:"cpu,omitempty"` // per operation
}

// MarshalJSON prints a row without its latency samples.
func (x row) MarshalJSON() ([]byte, error) {
	m := x.Dynapi
	out := rowJSON{Phase: x.Phase, Clients: x.Clients, Ops: m.Ops, Errors: m.Errors, Seconds: m.Elapsed.Seconds(),
		OpsPerSec: m.OpsPerSec(), P50Ms: msFloat(m.Percentile(50)), P99Ms: msFloat(m.Percentile(99)), CPU: m.CPU, Ratio: x.ratio()}
	if r := x.Raw; r != nil {
		out.Raw = &measurementJSON{Ops: r.Ops, Errors: r.Errors, OpsPerSec: r.OpsPerSec(),
			P50Ms: msFloat(r.Percentile(50)), P99Ms: msFloat(r.Percentile(99)), CPU: r.CPU}
	}
	return json.Marshal(out)
}

// writeJSON prints the report for programs.
func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func msFloat(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// rate formats a throughput with three significant digits or more.
func rate(opsPerSec float64) string {
	switch {
	case opsPerSec < 10:
		return fmt.Sprintf("%.2f", opsPerSec)
	case opsPerSec < 100:
		return fmt.Sprintf("%.1f", opsPerSec)
	}
	return fmt.Sprintf("%.0f", opsPerSec)
}

// ms formats a latency in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", msFloat(d)) }

// micros formats microseconds like a rate, "-" for unknown.
func micros(us *float64) string {
	if us == nil {
		return "-"
	}
	return rate(*us)
}

// mib formats a byte count in MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
