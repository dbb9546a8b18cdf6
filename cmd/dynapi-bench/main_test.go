package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// TestRun runs the whole tool with tiny numbers: it builds dynapi, starts
// a private PostgreSQL and two servers, and runs every phase.
func TestRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-n", "50", "-c", "4", "-watch-writes", "50", "-json"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var got struct {
		Phases []struct {
			Phase  string
			Ops    int
			Errors int
			Raw    *struct{ Ops int }
		}
		Memory []memory
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	want := map[string]int{ // phase: operations; a baseline where noted below
		"create": 50, "get": 50, "list all": listRepeats, "list paged (limit=500)": pagedRepeats,
		"list selector 1%": selectRepeats, "update (PUT)": 50, "patch (watch writes)": 50,
		"watch A→A": 50, "watch A→B": 50, "delete": 50,
	}
	withRaw := map[string]bool{"create": true, "get": true, "list all": true, "list selector 1%": true, "update (PUT)": true, "delete": true}
	for _, p := range got.Phases {
		if p.Ops != want[p.Phase] || p.Errors != 0 || (p.Raw != nil) != withRaw[p.Phase] {
			t.Errorf("phase %q: %d ops, %d errors, baseline %v", p.Phase, p.Ops, p.Errors, p.Raw != nil)
		}
		delete(want, p.Phase)
	}
	if len(want) > 0 {
		t.Errorf("phases missing: %v", want)
	}
	if len(got.Memory) != 2 || got.Memory[0].RSSBytes == 0 || got.Memory[1].HWMBytes == 0 {
		t.Errorf("memory = %+v, want both servers'", got.Memory)
	}
}
