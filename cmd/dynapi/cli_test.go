package main

import (
	"bytes"
	"context"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
)

// runCLI runs dynapi with args as main does, and returns the exit code
// and what it printed.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = exitCode(run(context.Background(), args, &out, &errOut), &errOut)
	return code, out.String(), errOut.String()
}

// The help, asked for, goes to stdout and exits 0, as Go's and
// Kubernetes' commands do.
func TestCLIHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "Flags of serve:"},
		{[]string{"-h"}, "Flags of serve:"},
		{[]string{"help"}, "Flags of serve:"},
		{[]string{"help", "check"}, "Flags of check:"},
		{[]string{"check", "--help"}, "Flags of check:"},
		{[]string{"migrate", "-help"}, "Flags of migrate:"},
		{[]string{"help", "healthcheck"}, "Flags of healthcheck:"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, tt.args...)
		if code != 0 || !strings.HasPrefix(stdout, "Usage: dynapi [command] [flags]") || !strings.Contains(stdout, tt.want) || stderr != "" {
			t.Errorf("dynapi %v: exit %d, stdout %d bytes (want %q), stderr %q", tt.args, code, len(stdout), tt.want, stderr)
		}
	}
}

// A command line that does not parse is told in one line and a hint,
// not the whole usage, and exits 2.
func TestCLIUsageError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--foo"}, "dynapi: unknown flag: --foo\nRun 'dynapi --help' for usage.\n"},
		{[]string{"-foo=1"}, "dynapi: unknown flag: --foo\nRun 'dynapi --help' for usage.\n"},
		{[]string{"check", "--sch", "x"}, "dynapi: unknown flag: --sch\nRun 'dynapi check --help' for usage.\n"},
		{[]string{"check", "--schemas"}, "dynapi: flag needs an argument: --schemas\nRun 'dynapi check --help' for usage.\n"},
		{[]string{"chekc"}, "dynapi: unexpected arguments: [chekc]\nRun 'dynapi --help' for usage.\n"},
		{[]string{"version", "x"}, "dynapi: unexpected arguments: [x]\nRun 'dynapi version --help' for usage.\n"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, tt.args...)
		if code != 2 || stdout != "" || stderr != tt.want {
			t.Errorf("dynapi %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
}

// dynapi version and --version print two lines: dynapi's version and the
// Kubernetes API version it serves.
func TestCLIVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}, {"check", "--version"}} {
		code, stdout, stderr := runCLI(t, args...)
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if code != 0 || stderr != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], "dynapi version: ") ||
			!strings.HasPrefix(lines[1], "Kubernetes API version: v1.") {
			t.Errorf("dynapi %v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

func TestVersionLines(t *testing.T) {
	t.Parallel()
	api := &debug.Module{Path: "k8s.io/api", Version: "v0.37.2"}
	tests := []struct {
		name string
		info *debug.BuildInfo
		want []string
	}{
		{"released", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Deps: []*debug.Module{api}},
			[]string{"dynapi version: v1.4.0", "Kubernetes API version: v1.37.2 (k8s.io/api v0.37.2)"}},
		{"built in a checkout with changes", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Deps: []*debug.Module{api},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "169840fcfb8a"}, {Key: "vcs.time", Value: "2025-11-28T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			[]string{"dynapi version: 169840fcfb8a 2025-11-28T10:00:00Z dirty", "Kubernetes API version: v1.37.2 (k8s.io/api v0.37.2)"}},
		{"k8s.io/api replaced", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Deps: []*debug.Module{{Path: "k8s.io/api", Version: "v0.37.2", Replace: &debug.Module{Path: "../api", Version: "v0.38.0"}}}},
			[]string{"dynapi version: (devel)", "Kubernetes API version: v1.38.0 (k8s.io/api v0.38.0)"}},
		{"no build information", nil, []string{"dynapi version: unknown", "Kubernetes API version: unknown"}},
	}
	for _, tt := range tests {
		if got := versionLines(tt.info); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q; want %q", tt.name, got, tt.want)
		}
	}
}

// Rules for kinds the schemas folder does not hold, and a conversions
// folder that does not exist, are warnings: check passes, as serve serves.
func TestCheckConversionWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schemas, conversions string
		want                       string
	}{
		{"rules for kinds not loaded", t.TempDir(), "../../conversions",
			"warning: ../../conversions/plumbing.example.com/pipe.yaml: Pipe.plumbing.example.com: no such kind is loaded"},
		{"no conversions folder", "testdata/rules/schemas", "testdata/nowhere",
			"warning: testdata/nowhere: no such folder: no conversion rules are loaded"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, "check", "--schemas", tt.schemas, "--conversions", tt.conversions)
		if code != 0 || !strings.Contains(stdout, tt.want) || strings.Contains(stdout, "problem") || !strings.Contains(stdout, "ok: ") {
			t.Errorf("%s: exit %d\n%s%s", tt.name, code, stdout, stderr)
		}
	}
}

// Once compiling has taken longer than the interval, check tells how far
// it is on stderr, and its last line says all are done.
func TestCheckProgress(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	cfg := Config{Schemas: "testdata/rules/schemas", Conversions: "testdata/no-rules", ProgressInterval: 1} // 1 ns: every definition
	if err := check(cfg, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	if want := "compiling definitions: 1 of 2\ncompiling definitions: 2 of 2\n"; stderr.String() != want {
		t.Errorf("stderr %q; want %q", stderr.String(), want)
	}
}

// A load shorter than the interval prints nothing; one longer prints its
// last line too.
func TestProgressLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		interval int64 // ns
		want     []int
	}{
		{int64(1e18), nil}, // never elapses
		{1, []int{1, 2, 3, 1}},
	}
	for _, tt := range tests {
		var got []int
		p := startProgress(0, func(done, total int) { got = append(got, done) })
		p.interval = time.Duration(tt.interval)
		for _, u := range [][2]int{{0, 3}, {1, 3}, {2, 3}, {3, 3}, {0, 1}, {1, 1}} {
			p.update(u[0], u[1])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("interval %d ns: lines at %v; want %v", tt.interval, got, tt.want)
		}
	}
}
