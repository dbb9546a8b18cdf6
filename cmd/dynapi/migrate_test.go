package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/storagemigration"
)

func TestDescribeMigration(t *testing.T) {
	pipes := engine.GroupResource{Group: "plumbing.example.com", Resource: "pipes"}
	tests := []struct {
		report storagemigration.Report
		want   string
	}{
		{storagemigration.Report{Resource: pipes, Before: map[string]int{}}, "pipes.plumbing.example.com: no objects"},
		{storagemigration.Report{Resource: pipes, Before: map[string]int{"v2": 10, "v1": 3}, Rewritten: 2, Skipped: 1},
			"pipes.plumbing.example.com: stored in v1=3 v2=10; rewrote 2 into v2, skipped 1"},
	}
	for _, tt := range tests {
		if got := describeMigration(tt.report, "v2"); got != tt.want {
			t.Errorf("describeMigration = %q, want %q", got, tt.want)
		}
	}
}

// schemasWithPipeStoredInV1 is a copy of the shipped definitions with v1
// as Pipe's storage version, as before a change of storage version.
func schemasWithPipeStoredInV1(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../schemas")); err != nil {
		t.Fatal(err)
	}
	pipeFile := filepath.Join(dir, "plumbing.example.com", "pipe.yaml")
	pipe, err := os.ReadFile(pipeFile)
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(strings.Replace(string(pipe), "  storage: true\n", "", 1),
		"- name: v1\n  served: true\n", "- name: v1\n  served: true\n  storage: true\n", 1)
	if strings.Count(moved, "storage: true") != 1 || !strings.Contains(moved, "- name: v1\n  served: true\n  storage: true\n") {
		t.Fatalf("cannot move the storage version in %s", pipeFile)
	}
	if err := os.WriteFile(pipeFile, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMigrateCommand runs `dynapi migrate` as a user would, after the
// storage version of Pipe moved from v1 to v2: the first run rewrites the
// object stored in v1, the second finds nothing left to do.
func TestMigrateCommand(t *testing.T) {
	url, _ := startPostgres(t)
	oldSchemas := schemasWithPipeStoredInV1(t)
	m := runMain(t, Config{DatabaseURL: url, Schemas: oldSchemas})
	mustDo(t, http.StatusCreated, http.MethodPost, "http://"+m.Addr()+"/apis/plumbing.example.com/v1/namespaces/default/pipes",
		`{"apiVersion":"plumbing.example.com/v1","kind":"Pipe","metadata":{"name":"main"},
		  "spec":{"owner":"team-water","diameter":120,"material":"steel","outlet":"north","tags":"potable","pressure":6}}`)
	// A kind defined through the API is migrated too.
	mustDo(t, http.StatusCreated, http.MethodPost, "http://"+m.Addr()+crdsPath, cronTabCRD("stable.example.com", "crontabs", "CronTab", "v1"))
	waitFor(t, http.StatusOK, crontabsPath, "http://"+m.Addr())
	mustDo(t, http.StatusCreated, http.MethodPost, "http://"+m.Addr()+crontabsPath,
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly"},"spec":{"cron":"0 3 * * *"}}`)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	args := []string{"migrate", "--database-url", url, "--schemas", "../../schemas", "--conversions", "../../conversions"}
	for _, want := range []string{
		"pipes.plumbing.example.com: stored in v1=1; rewrote 1 into v2, skipped 0\n",
		"pipes.plumbing.example.com: stored in v2=1; rewrote 0 into v2, skipped 0\n",
	} {
		want += "crontabs.stable.example.com: stored in v1=1; rewrote 0 into v1, skipped 0\n"
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("dynapi migrate: %v\n%s", err, stderr.String())
		}
		for _, line := range strings.SplitAfter(want, "\n") {
			if !strings.Contains(stdout.String(), line) {
				t.Errorf("dynapi migrate printed:\n%s\nwant a line %q", stdout.String(), line)
			}
		}
	}

	// Rules for kinds not loaded, and a conversions folder that does not
	// exist, are warnings, as serve logs them, not errors.
	empty := t.TempDir()
	for _, tt := range []struct{ conversions, want string }{
		{"no-such-dir", "no such folder: no conversion rules are loaded"},
		{"../../conversions", "Pipe.plumbing.example.com: no such kind is loaded"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), []string{"migrate", "--database-url", url, "--schemas", empty, "--conversions", tt.conversions}, io.Discard, &stderr)
		if err != nil || !strings.Contains(stderr.String(), `msg="definitions warning"`) || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("dynapi migrate --conversions %s: %v; want a warning %q:\n%s", tt.conversions, err, tt.want, stderr.String())
		}
	}

	// A missing definitions folder is named, not taken for a broken file.
	err := run(context.Background(), []string{"migrate", "--database-url", url, "--schemas", "no-such-dir"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "schemas directory") {
		t.Errorf("dynapi migrate --schemas no-such-dir: %v; want an error naming the schemas directory", err)
	}
}
