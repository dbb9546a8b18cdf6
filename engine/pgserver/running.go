package pgserver

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Running returns the connection string of the persistent server that
// another process started in dataDir and that still runs, if one does: a
// short-lived command (`dynapi migrate`) beside a running dynapi uses its
// server rather than failing to start a second one on the same cluster.
// It reads what the server says of itself in postmaster.pid: its pid, its
// socket directory, its port and that it is ready.
func Running(dataDir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(dataDir, "pgdata", "postmaster.pid"))
	if err != nil {
		return "", false
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 8 || strings.TrimSpace(lines[7]) != "ready" {
		return "", false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || pid <= 0 || !alive(pid) {
		return "", false // a file left by a server that crashed
	}
	port, sockDir := strings.TrimSpace(lines[3]), strings.TrimSpace(lines[4])
	if sockDir == "" {
		return "", false
	}
	u := url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/postgres",
		RawQuery: url.Values{"host": {sockDir}, "port": {port}, "sslmode": {"disable"}}.Encode()}
	return u.String(), true
}

// alive reports whether process pid exists (signal 0 checks without
// sending; EPERM means it exists but belongs to another user).
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
