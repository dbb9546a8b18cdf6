package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The README's figures table sits between these two lines; -readme
// rewrites what is between them and nothing else.
const (
	readmeBegin = "<!-- dynapi-bench -readme: begin -->"
	readmeEnd   = "<!-- dynapi-bench -readme: end -->"
)

// kubeFigure is the Kubernetes CRD server's figure for a phase, from
// DESIGN.md's "Numbers to beat" (apiextensions-apiserver on etcd, 2 cores).
type kubeFigure struct {
	rate   float64         // operations per second at 10k objects; 0: none
	listMs map[int]float64 // the time of one list, by object count
	p99Ms  float64         // a watch event's p99 latency
	text   string          // the figure as DESIGN.md states it
}

// kubeFigures are DESIGN.md's Kubernetes figures, by phase.
var kubeFigures = map[string]kubeFigure{
	"create":           {rate: 777, text: "777/s"},
	"get":              {rate: 2172, text: "2,172/s"},
	"update (PUT)":     {rate: 793, text: "793/s"},
	"delete":           {rate: 956, text: "956/s"},
	"list all":         {listMs: map[int]float64{10000: 345, 100000: 4160}, text: "345 ms (10k), 4,160 ms (100k)"},
	"list selector 1%": {listMs: map[int]float64{100000: 116}, text: "116 ms (100k)"},
	"watch A→A":        {p99Ms: 17, text: "p99 17 ms"},
}

// kubeMemory is DESIGN.md's Kubernetes memory figure.
const kubeMemory = "4.5 GiB (100k)"

// runContext is what the table says about the run beside its figures.
type runContext struct {
	Commit    string // git describe of the module, "-dirty" when changed
	Date      time.Time
	LoadStart string // /proc/loadavg's three figures when the run began
	LoadEnd   string
	Token     bool // authentication and RBAC on
}

// writeMarkdown prints the report as the README's figures table.
func (r *report) writeMarkdown(w io.Writer, rc runContext) error {
	security := "open (no authentication)"
	if rc.Token {
		security = "token authentication and RBAC on"
	}
	fmt.Fprintf(w, "Commit `%s`, %s; %d objects of ~%d bytes, %d clients, %s; load average %s at the start, %s at the end.\n\n",
		rc.Commit, rc.Date.UTC().Format("2006-01-02 15:04 MST"), r.Objects, r.Size, r.Clients, security, rc.LoadStart, rc.LoadEnd)
	fmt.Fprintln(w, "| phase | dynapi | p50 / p99 | raw pgx | ratio to raw | Kubernetes CRD server | dynapi against Kubernetes |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, x := range r.Rows {
		fmt.Fprintln(w, r.markdownRow(x))
	}
	_, err := fmt.Fprintf(w, "| resident memory | %s | | | | %s | |\n", r.memoryText(), kubeMemory)
	return err
}

// markdownRow is one phase's line: a rate for single-object phases, the
// time of one operation for lists and watches.
func (r *report) markdownRow(x row) string {
	m, k := x.Dynapi, kubeFigures[x.Phase]
	value, raw, ratio, vsKube := rate(m.OpsPerSec())+"/s", "—", "—", "—"
	perOp := isPerOperation(x.Phase)
	if perOp {
		value = "—"
	}
	if x.Raw != nil {
		raw, ratio = rate(x.Raw.OpsPerSec())+"/s", fmt.Sprintf("%.2f", x.ratio())
		if perOp {
			raw = msText(x.Raw.Percentile(50))
		}
	}
	switch {
	case k.rate > 0 && m.OpsPerSec() > 0:
		vsKube = fmt.Sprintf("%.1f×", m.OpsPerSec()/k.rate)
	case k.listMs[r.Objects] > 0:
		vsKube = fmt.Sprintf("%.2f× the time", msFloat(m.Percentile(50))/k.listMs[r.Objects])
	case k.p99Ms > 0:
		vsKube = fmt.Sprintf("%.2f× the p99", msFloat(m.Percentile(99))/k.p99Ms)
	}
	return fmt.Sprintf("| %s | %s | %s / %s | %s | %s | %s | %s |", x.Phase, value,
		msText(m.Percentile(50)), msText(m.Percentile(99)), raw, ratio, orDash(k.text), vsKube)
}

// isPerOperation says whether a phase is read as the time of one
// operation (lists, watch events) rather than as a rate.
func isPerOperation(phase string) bool {
	return strings.HasPrefix(phase, "list") || strings.HasPrefix(phase, "watch")
}

// memoryText is the servers' resident memory, "A 45.0 MiB, B 35.2 MiB".
func (r *report) memoryText() string {
	var parts []string
	for _, m := range r.Memory {
		parts = append(parts, m.Server+" "+mib(m.RSSBytes))
	}
	return orDash(strings.Join(parts, ", "))
}

// msText formats a latency in milliseconds for the table.
func msText(d time.Duration) string { return fmt.Sprintf("%.1f ms", msFloat(d)) }

// orDash is s, or a dash for an empty cell.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// replaceBlock returns doc with the lines between readmeBegin and
// readmeEnd replaced by table. Errors: either marker missing, or out of order.
func replaceBlock(doc, table []byte) ([]byte, error) {
	begin := bytes.Index(doc, []byte(readmeBegin+"\n"))
	end := bytes.Index(doc, []byte(readmeEnd))
	if begin < 0 || end < 0 || end < begin {
		return nil, fmt.Errorf("want the lines %q and %q, in that order", readmeBegin, readmeEnd)
	}
	start := begin + len(readmeBegin) + 1
	out := append([]byte(nil), doc[:start]...)
	out = append(out, table...)
	return append(out, doc[end:]...), nil
}

// updateReadme rewrites the figures table of the file at path.
func updateReadme(path string, r *report, rc runContext) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var table bytes.Buffer
	if err := r.writeMarkdown(&table, rc); err != nil {
		return err
	}
	out, err := replaceBlock(doc, table.Bytes())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}

// loadAverage returns /proc/loadavg's three figures, "unknown" where
// there is none.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	fields := strings.Fields(string(data))
	if err != nil || len(fields) < 3 {
		return "unknown"
	}
	return strings.Join(fields[:3], " ")
}

// newRunContext notes, before a run that will rewrite -readme, the
// commit measured and the load average at the start.
func newRunContext(ctx context.Context, cfg config) (runContext, error) {
	rc := runContext{Date: time.Now(), LoadStart: loadAverage(), Token: cfg.Token != ""}
	if cfg.Readme == "" {
		return rc, nil
	}
	var err error
	rc.Commit, err = commitOf(ctx)
	return rc, err
}

// commitOf describes the module's commit, "-dirty" when the tree has changes.
func commitOf(ctx context.Context) (string, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", errors.Join(errors.New("describe the commit with git"), err)
	}
	return strings.TrimSpace(string(out)), nil
}
