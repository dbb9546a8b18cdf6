package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestRun runs the whole tool with small numbers: it builds dynapi, starts
// a private PostgreSQL and two servers, and runs every phase.
func TestRun(t *testing.T) {
	// Why 500 objects: /proc counts CPU time in 10 ms ticks, and 50 plain
	// INSERTs (about 100 µs of PostgreSQL each) may not fill one.
	const objects = 500
	var stdout, stderr bytes.Buffer
	readme := filepath.Join(t.TempDir(), "README.md")
	if err := os.WriteFile(readme, []byte(readmeBegin+"\n"+readmeEnd+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-n", strconv.Itoa(objects), "-c", "4", "-watch-writes", "50", "-batch", "200", "-json", "-readme", readme}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if table, _ := os.ReadFile(readme); !strings.Contains(string(table), "| create | ") || !strings.Contains(string(table), "| resident memory | A ") {
		t.Errorf("-readme: the file has no figures table:\n%s", table)
	}
	var got struct {
		Phases []struct {
			Phase  string
			Ops    int
			Errors int
			CPU    *cpuUse
			Raw    *struct {
				Ops int
				CPU *cpuUse
			}
		}
		Memory []memory
		Growth []growthStep
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	want := map[string]int{ // phase: operations; a baseline where noted below
		"create": objects, "get": objects, "list all": listRepeats, "list all metadata-only": listRepeats, "list paged (limit=500)": pagedRepeats,
		"list paged, each page (limit=500)": pagedRepeats, // one page each
		"list selector 1%":                  selectRepeats, "list selector 0.1%": selectRepeats, "update (PUT)": objects, "merge patch": objects, "patch (watch writes)": 50,
		"watch A→A": 50, "watch A→B": 50, "delete": objects,
	}
	withRaw := map[string]bool{"create": true, "get": true, "list all": true, "list selector 1%": true, "list selector 0.1%": true, "update (PUT)": true, "merge patch": true, "delete": true}
	for _, p := range got.Phases {
		if p.Ops != want[p.Phase] || p.Errors != 0 || (p.Raw != nil) != withRaw[p.Phase] {
			t.Errorf("phase %q: %d ops, %d errors, baseline %v", p.Phase, p.Ops, p.Errors, p.Raw != nil)
		}
		if p.Phase == "create" && p.Raw != nil {
			checkCPU(t, "create", p.CPU, true)
			checkCPU(t, "create baseline", p.Raw.CPU, false)
		}
		delete(want, p.Phase)
	}
	if len(want) > 0 {
		t.Errorf("phases missing: %v", want)
	}
	checkGrowth(t, got.Growth, []int{200, 400, objects})
	if len(got.Memory) != 2 || got.Memory[0].RSSBytes == 0 || got.Memory[1].HWMBytes == 0 {
		t.Errorf("memory = %+v, want both servers'", got.Memory)
	}
}

// checkCPU checks that a run started by the tool has positive CPU figures
// for every part it metered: the tool, PostgreSQL and, unless a baseline,
// the dynapi servers.
func checkCPU(t *testing.T, run string, u *cpuUse, dynapi bool) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return // only Linux has the figures
	}
	if u == nil || u.ToolUs == nil || *u.ToolUs <= 0 || u.PostgresUs == nil || *u.PostgresUs <= 0 ||
		(u.DynapiUs != nil) != dynapi || dynapi && *u.DynapiUs <= 0 || u.TotalUs <= 0 {
		t.Errorf("%s: CPU per operation = %s, want positive figures (dynapi: %v)", run, show(u), dynapi)
	}
}

// checkGrowth checks that -batch recorded a step after each batch, with
// the objects stored then, a rate, both servers' memory and the CPU time
// of dynapi and PostgreSQL per create.
func checkGrowth(t *testing.T, steps []growthStep, objects []int) {
	t.Helper()
	if len(steps) != len(objects) {
		t.Fatalf("growth = %+v, want a step at each of %v objects", steps, objects)
	}
	for i, s := range steps {
		metered := runtime.GOOS != "linux" || s.CPU != nil && s.CPU.DynapiUs != nil && s.CPU.PostgresUs != nil
		if s.Objects != objects[i] || s.CreatesPerSec <= 0 || len(s.RSSBytes) != 2 || s.RSSBytes[0] == 0 || s.RSSBytes[1] == 0 || !metered {
			t.Errorf("growth step %d = %+v, want %d objects, a rate, both servers' memory and CPU", i, s, objects[i])
		}
	}
}
