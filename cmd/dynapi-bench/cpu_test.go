package main

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	t.Parallel()
	// Fields 3-17 and a few more, as Linux prints them: utime 250, stime 50,
	// cutime 7, cstime 3.
	const rest = " S 1 1234 1234 0 -1 4194560 900 0 0 0 250 50 7 3 20 0 1 0 555 226897920 2000"
	tests := []struct {
		name    string
		line    string
		want    procStat
		wantErr string
	}{
		{name: "plain", line: "1234 (postgres)" + rest,
			want: procStat{pid: 1234, ppid: 1, ticks: 300, childTicks: 10}},
		{name: "name with spaces and parentheses", line: "1234 (postgres: bench (x)) S 1 ...)" + rest + "\n",
			want: procStat{pid: 1234, ppid: 1, ticks: 300, childTicks: 10}},
		{name: "no name", line: "1234 postgres" + rest, wantErr: "no command name"},
		{name: "bad pid", line: "x (postgres)" + rest, wantErr: "pid"},
		{name: "too few fields", line: "1234 (postgres) S 1 1234 1234 0 -1 4194560 900 0 0 0 250 50", wantErr: "want at least 17"},
		{name: "not a number", line: strings.Replace("1234 (postgres)"+rest, " 250 ", " lots ", 1), wantErr: "field 14"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat(tt.line)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseStat = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestReadStatSelf reads the test binary's own line from /proc.
func TestReadStatSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/<pid>/stat is Linux's")
	}
	st, err := readStat(os.Getpid())
	if err != nil || st.pid != os.Getpid() || st.ppid != os.Getppid() || st.ticks < 0 {
		t.Fatalf("readStat(self) = %+v, %v", st, err)
	}
}

func TestCPUPerOp(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name          string
		before, after cpuTicks
		ops           int
		want          *cpuUse
	}{
		{name: "all parts", before: cpuTicks{10, 20, 30}, after: cpuTicks{20, 60, 130}, ops: 1000, // a tick is 10ms
			want: &cpuUse{ToolUs: f(100), DynapiUs: f(400), PostgresUs: f(1000), TotalUs: 1500}},
		{name: "dynapi unknown", before: cpuTicks{0, -1, 0}, after: cpuTicks{1, -1, 3}, ops: 4,
			want: &cpuUse{ToolUs: f(2500), PostgresUs: f(7500), TotalUs: 10000}},
		{name: "postgres unknown after", before: cpuTicks{0, 0, 5}, after: cpuTicks{2, 2, -1}, ops: 2,
			want: &cpuUse{ToolUs: f(10000), DynapiUs: f(10000), TotalUs: 20000}},
		{name: "nothing used", before: cpuTicks{7, 7, 7}, after: cpuTicks{7, 7, 7}, ops: 5,
			want: &cpuUse{ToolUs: f(0), DynapiUs: f(0), PostgresUs: f(0)}},
		{name: "no operations", before: cpuTicks{0, 0, 0}, after: cpuTicks{1, 1, 1}, ops: 0, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cpuPerOp(tt.before, tt.after, tt.ops)
			if show(got) != show(tt.want) {
				t.Fatalf("cpuPerOp = %s, want %s", show(got), show(tt.want))
			}
		})
	}
}

// show prints a cpuUse as the CPU table does.
func show(u *cpuUse) string {
	if u == nil {
		return "nil"
	}
	return strings.Join([]string{micros(u.ToolUs), micros(u.DynapiUs), micros(u.PostgresUs), micros(&u.TotalUs)}, " ")
}

func TestNilCPUMeter(t *testing.T) {
	var m *cpuMeter // systems other than Linux
	if got := m.since(m.sample(), 10); got != nil || m.withoutServers() != nil {
		t.Fatalf("nil meter measured %+v", got)
	}
}
