package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// memory is the resident memory of one dynapi process, from /proc.
type memory struct {
	Server   string `json:"server"`
	RSSBytes int64  `json:"rssBytes"` // VmRSS: resident now
	HWMBytes int64  `json:"hwmBytes"` // VmHWM: the most it has been resident
}

// memory reads VmRSS and VmHWM of a server the tool started.
func (s *server) memory() (memory, error) {
	m := memory{Server: s.name}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return m, fmt.Errorf("read memory of dynapi %s: %w", s.name, err)
	}
	if m.RSSBytes, err = statusKB(data, "VmRSS"); err != nil {
		return m, err
	}
	m.HWMBytes, err = statusKB(data, "VmHWM")
	return m, err
}

// statusKB returns a "Field:   123 kB" line of /proc/<pid>/status in bytes.
func statusKB(status []byte, field string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		value, ok := strings.CutPrefix(sc.Text(), field+":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), "kB")), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse %s %q: %w", field, value, err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("no %s in /proc status", field)
}
