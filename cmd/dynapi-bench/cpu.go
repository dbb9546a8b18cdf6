package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat: clock ticks of
// USER_HZ (sysconf(_SC_CLK_TCK)), which Linux fixes at 100 per second on
// every mainstream architecture. Go cannot call sysconf without cgo.
const userHZ = 100

// procStat is what the tool reads of a /proc/<pid>/stat line.
type procStat struct {
	pid, ppid  int
	ticks      int64 // utime + stime: the process's own CPU time
	childTicks int64 // cutime + cstime: that of the children it has reaped
}

// parseStat reads a /proc/<pid>/stat line. The command name (field 2) is in
// parentheses and may hold spaces and parentheses itself, as in
// "postgres: bench (x)", so the other fields are counted from the last ')'.
func parseStat(line string) (procStat, error) {
	open, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("parse /proc stat %.80q: no command name", line)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line[:open]))
	if err != nil {
		return procStat{}, fmt.Errorf("parse /proc stat pid: %w", err)
	}
	f := strings.Fields(line[end+1:]) // f[0] is field 3, the state
	var n [5]int64                    // fields 4 (ppid) and 14-17 (utime, stime, cutime, cstime)
	for i, field := range []int{4, 14, 15, 16, 17} {
		if len(f) <= field-3 {
			return procStat{}, fmt.Errorf("parse /proc stat of %d: %d fields, want at least 17", pid, len(f)+2)
		}
		if n[i], err = strconv.ParseInt(f[field-3], 10, 64); err != nil {
			return procStat{}, fmt.Errorf("parse /proc stat of %d, field %d: %w", pid, field, err)
		}
	}
	return procStat{pid: pid, ppid: int(n[0]), ticks: n[1] + n[2], childTicks: n[3] + n[4]}, nil
}

// readStat reads /proc/<pid>/stat.
func readStat(pid int) (procStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseStat(string(data))
}

// cpuTicks is the CPU time each part of a run had used at one moment, in
// ticks; -1 where unknown.
type cpuTicks struct{ tool, dynapi, postgres int64 }

// cpuMeter reads the CPU time used so far by the tool, the dynapi servers
// and PostgreSQL. A nil *cpuMeter reads nothing (systems other than Linux).
type cpuMeter struct {
	servers    []int // PIDs of the dynapi servers; nil: unknown
	postmaster int   // PID of PostgreSQL's postmaster; 0: unknown
}

// newCPUMeter meters what the tool started: the CPU of servers given with
// -servers, or of a database given with -database-url, is unknown.
func newCPUMeter(cl *cluster) *cpuMeter {
	if runtime.GOOS != "linux" {
		return nil
	}
	m := &cpuMeter{}
	if cl.pg != nil {
		m.postmaster = cl.pg.PID()
	}
	for _, s := range cl.servers {
		if s.cmd == nil {
			m.servers = nil
			break
		}
		m.servers = append(m.servers, s.cmd.Process.Pid)
	}
	return m
}

// withoutServers meters the baseline, which the dynapi servers take no part in.
func (m *cpuMeter) withoutServers() *cpuMeter {
	if m == nil {
		return nil
	}
	return &cpuMeter{postmaster: m.postmaster}
}

// sample reads the CPU time each part has used so far.
func (m *cpuMeter) sample() cpuTicks {
	if m == nil {
		return cpuTicks{}
	}
	tool := int64(-1)
	if st, err := readStat(os.Getpid()); err == nil {
		tool = st.ticks // not childTicks: those are `go build` and the like
	}
	return cpuTicks{tool: tool, dynapi: m.dynapiTicks(), postgres: m.postgresTicks()}
}

// metered runs f like parallel and adds the CPU time that meter saw used
// meanwhile, per operation.
func metered(ctx context.Context, meter *cpuMeter, clients, n int, f op) measurement {
	before := meter.sample()
	m := parallel(ctx, clients, n, f)
	m.CPU = meter.since(before, m.Ops)
	return m
}

// since divides the CPU time used since before among ops operations; nil
// for a nil *cpuMeter.
func (m *cpuMeter) since(before cpuTicks, ops int) *cpuUse {
	if m == nil {
		return nil
	}
	return cpuPerOp(before, m.sample(), ops)
}

// dynapiTicks sums the CPU time of the dynapi servers.
func (m *cpuMeter) dynapiTicks() int64 {
	if m.servers == nil {
		return -1
	}
	var total int64
	for _, pid := range m.servers {
		st, err := readStat(pid)
		if err != nil {
			return -1 // the server has exited: the phase's errors say so
		}
		total += st.ticks
	}
	return total
}

// postgresTicks sums the CPU time of the postmaster and of its children: a
// backend per connection and the auxiliary processes. A child that exits
// leaves /proc, but the postmaster reaps it at once, which adds its time to
// the postmaster's childTicks: so the figure keeps it. (The pools keep their
// connections anyway, so few backends exit during a phase.)
func (m *cpuMeter) postgresTicks() int64 {
	if m.postmaster == 0 {
		return -1
	}
	pm, err := readStat(m.postmaster)
	if err != nil {
		return -1
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	total := pm.ticks + pm.childTicks
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue // not a process
		}
		if st, err := readStat(pid); err == nil && st.ppid == m.postmaster {
			total += st.ticks // an error: the process has exited since ReadDir
		}
	}
	return total
}

// cpuUse is the CPU time each part used per operation of a run, in
// microseconds; a part left out is unknown. TotalUs sums the parts present.
type cpuUse struct {
	ToolUs     *float64 `json:"toolUs,omitempty"`
	DynapiUs   *float64 `json:"dynapiUs,omitempty"`
	PostgresUs *float64 `json:"postgresUs,omitempty"`
	TotalUs    float64  `json:"totalUs"`
}

// cpuPerOp divides the CPU time used from before to after among ops
// operations; nil without operations.
func cpuPerOp(before, after cpuTicks, ops int) *cpuUse {
	if ops <= 0 {
		return nil
	}
	u := &cpuUse{}
	part := func(b, a int64) *float64 {
		if b < 0 || a < 0 {
			return nil
		}
		us := float64(a-b) * (1e6 / userHZ) / float64(ops)
		u.TotalUs += us
		return &us
	}
	u.ToolUs = part(before.tool, after.tool)
	u.DynapiUs = part(before.dynapi, after.dynapi)
	u.PostgresUs = part(before.postgres, after.postgres)
	return u
}
