package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestWriteMarkdown checks the README's figures table against a golden
// file: rates and ratios for single-object phases, the time of one list
// against the Kubernetes figure at the same object count, watch p99s.
func TestWriteMarkdown(t *testing.T) {
	lat := func(ms ...float64) []time.Duration {
		var out []time.Duration
		for _, m := range ms {
			out = append(out, time.Duration(m*float64(time.Millisecond)))
		}
		return out
	}
	raw := func(ops int, elapsed time.Duration, ms ...float64) *measurement {
		return &measurement{Ops: ops, Elapsed: elapsed, Latencies: lat(ms...)}
	}
	r := report{Objects: 10000, Clients: 16, Size: 1200,
		Rows: []row{
			{Phase: "create", Clients: 16, Dynapi: measurement{Ops: 10000, Elapsed: 2 * time.Second, Latencies: lat(2, 6)}, Raw: raw(10000, time.Second, 1)},
			{Phase: "list all", Clients: 1, Dynapi: measurement{Ops: 10, Elapsed: time.Second, Latencies: lat(86, 100)}, Raw: raw(20, time.Second, 48)},
			{Phase: "list selector 1%", Clients: 1, Dynapi: measurement{Ops: 100, Elapsed: time.Second, Latencies: lat(5.7, 8.5)}, Raw: raw(250, time.Second, 3.8)},
			{Phase: "watch A→A", Clients: 16, Dynapi: measurement{Ops: 1000, Elapsed: time.Second, Latencies: lat(8.3, 13.1)}},
		},
		Memory: []memory{{Server: "A", RSSBytes: 45 << 20}, {Server: "B", RSSBytes: 35 << 20}}}
	rc := runContext{Commit: "abc1234", Date: time.Date(2026, 11, 28, 6, 30, 0, 0, time.UTC),
		LoadStart: "2.10 2.00 1.90", LoadEnd: "2.50 2.10 1.95", Token: true}
	var got bytes.Buffer
	if err := r.writeMarkdown(&got, rc); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "readme-table.md")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("table:\n%s\nwant (%s):\n%s", got.String(), golden, want)
	}
}

func TestReplaceBlock(t *testing.T) {
	block := readmeBegin + "\nold table\n" + readmeEnd + "\n"
	tests := []struct {
		name    string
		doc     string
		want    string
		wantErr bool
	}{
		{name: "between the markers", doc: "intro\n" + block + "after\n",
			want: "intro\n" + readmeBegin + "\nnew\n" + readmeEnd + "\nafter\n"},
		{name: "an empty block", doc: readmeBegin + "\n" + readmeEnd + "\n",
			want: readmeBegin + "\nnew\n" + readmeEnd + "\n"},
		{name: "no begin", doc: "old table\n" + readmeEnd + "\n", wantErr: true},
		{name: "no end", doc: readmeBegin + "\nold table\n", wantErr: true},
		{name: "end before begin", doc: readmeEnd + "\n" + readmeBegin + "\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := replaceBlock([]byte(tt.doc), []byte("new\n"))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want one: %v", err, tt.wantErr)
			}
			if !tt.wantErr && string(got) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestUpdateReadmeLeavesTheRest checks that only the block changes in the
// file, and that a file without markers is left as it was.
func TestUpdateReadmeLeavesTheRest(t *testing.T) {
	dir := t.TempDir()
	withMarkers := filepath.Join(dir, "README.md")
	doc := "# Title\n\n" + readmeBegin + "\nold\n" + readmeEnd + "\n\nThe rest.\n"
	without := filepath.Join(dir, "other.md")
	for path, text := range map[string]string{withMarkers: doc, without: "no markers\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &report{Objects: 10, Clients: 1, Size: 1200}
	if err := updateReadme(withMarkers, r, runContext{Commit: "c", LoadStart: "1", LoadEnd: "2"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(withMarkers)
	if !strings.HasPrefix(string(got), "# Title\n\n"+readmeBegin+"\nCommit `c`") || !strings.HasSuffix(string(got), readmeEnd+"\n\nThe rest.\n") ||
		strings.Contains(string(got), "old") {
		t.Errorf("README after the update:\n%s", got)
	}
	if err := updateReadme(without, r, runContext{}); err == nil {
		t.Error("a file without markers: no error")
	}
	if got, _ := os.ReadFile(without); string(got) != "no markers\n" {
		t.Errorf("a file without markers was changed: %q", got)
	}
}
