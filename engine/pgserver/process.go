package pgserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// startTimeout bounds how long Start waits for the server (crash recovery
// of a persistent cluster included).
const startTimeout = time.Minute

// initCluster runs initdb unless the data directory already holds a cluster.
func (s *Server) initCluster() error {
	fresh, err := s.needsInitdb()
	if err != nil {
		return err
	}
	if err := s.mustReach(filepath.Dir(s.dataDir)); err != nil {
		return err
	}
	if !fresh {
		return s.acct.chownTree(s.dataDir)
	}
	if err := s.acct.chown(s.dataDir); err != nil {
		return err
	}
	if s.primary != nil {
		return s.copyPrimary()
	}
	s.log.Info("initializing PostgreSQL cluster", "dataDir", s.dataDir)
	args := []string{"-D", s.dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C"}
	if s.ephemeral {
		args = append(args, "--no-sync")
	}
	if out, err := s.command("initdb", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("initdb %s: %w: %s", s.dataDir, err, tail(out))
	}
	return nil
}

// needsInitdb reports whether the data directory is new or empty (creating
// it if missing); a non-empty directory must hold a cluster.
func (s *Server) needsInitdb() (bool, error) {
	entries, err := os.ReadDir(s.dataDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(s.dataDir, 0o700); err != nil {
			return false, fmt.Errorf("create cluster directory: %w", err)
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("read cluster directory: %w", err)
	case len(entries) == 0:
		return true, nil
	}
	if _, err := os.Stat(filepath.Join(s.dataDir, "PG_VERSION")); err != nil {
		return false, fmt.Errorf("%s is not empty but holds no PostgreSQL cluster (no PG_VERSION)", s.dataDir)
	}
	return false, nil
}

// start launches the postmaster, logging to a fresh server log, and waits
// until it is ready.
func (s *Server) start(ctx context.Context) error {
	logFile, err := s.openLog()
	if err != nil {
		return err
	}
	defer logFile.Close() // the child holds its own descriptor
	cmd := s.command("postgres", s.serverArgs()...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	started := make(chan error, 1)
	go s.supervise(cmd, started)
	if err := <-started; err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	return s.waitReady(ctx)
}

// openLog opens the server log afresh, for the server account alone: it
// holds statements and the values in them.
func (s *Server) openLog() (*os.File, error) {
	f, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open server log: %w", err)
	}
	// The mode given applies only to a new file; an earlier dynapi made
	// the log world-readable.
	if err := f.Chmod(0o600); err != nil {
		return nil, errors.Join(fmt.Errorf("chmod server log: %w", err), f.Close())
	}
	if err := s.acct.chown(s.logPath); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return f, nil
}

// serverArgs configures the server: Unix socket only, room for many test
// databases, and no durability for ephemeral servers (but for commits
// when Durable).
func (s *Server) serverArgs() []string {
	args := []string{"-D", s.dataDir, "-k", s.sockDir,
		"-c", "listen_addresses=", "-c", "port=5432", "-c", "max_connections=200"}
	if s.ephemeral {
		args = append(args, "-c", "fsync=off", "-c", "full_page_writes=off")
		if !s.durable {
			args = append(args, "-c", "synchronous_commit=off")
		}
	}
	return args
}

// supervise starts cmd and waits for it to exit, then closes s.done.
func (s *Server) supervise(cmd *exec.Cmd, started chan<- error) {
	// Why lock the thread: the parent-death signal (see procAttr) fires when
	// the OS thread that started the child exits, which Go does when a
	// goroutine locked to it ends. This goroutine owns the thread and keeps
	// it until the child has exited, whatever the caller of Start does.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		started <- err
		return
	}
	s.proc = cmd.Process // published to Start by the send below
	started <- nil
	s.waitErr = cmd.Wait()
	close(s.done)
}

// waitReady polls postmaster.pid until the server says it is ready.
func (s *Server) waitReady(ctx context.Context) error {
	deadline := time.After(startTimeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !s.ready() {
		select {
		case <-s.done:
			return fmt.Errorf("postgres exited during startup (%v); server log:\n%s", s.waitErr, s.logTail())
		case <-deadline:
			return fmt.Errorf("postgres not ready after %s; server log:\n%s", startTimeout, s.logTail())
		case <-ctx.Done():
			return fmt.Errorf("wait for postgres: %w", ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// ready reports whether postmaster.pid names our process with status
// "ready" (line 8, PostgreSQL 10+). Checking the pid ignores a stale file.
func (s *Server) ready() bool {
	data, err := os.ReadFile(filepath.Join(s.dataDir, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(data), "\n")
	return len(lines) >= 8 && lines[0] == strconv.Itoa(s.proc.Pid) && strings.TrimSpace(lines[7]) == "ready"
}

// shutdown asks for a fast shutdown, then an immediate one, then kills.
func (s *Server) shutdown() error {
	if s.proc == nil {
		return nil
	}
	steps := []struct {
		sig  os.Signal
		wait time.Duration
	}{{syscall.SIGINT, 30 * time.Second}, {syscall.SIGQUIT, 5 * time.Second}, {os.Kill, 5 * time.Second}}
	for _, step := range steps {
		if err := s.proc.Signal(step.sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			continue // e.g. a signal this platform cannot send
		}
		select {
		case <-s.done:
			return nil
		case <-time.After(step.wait):
			s.log.Warn("PostgreSQL did not stop in time", "signal", step.sig, "waited", step.wait)
		}
	}
	return fmt.Errorf("stop postgres: process %d did not exit", s.proc.Pid)
}

// command prepares a PostgreSQL binary to run as the server account.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = filepath.Dir(s.dataDir) // the account may not be able to enter ours
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.SysProcAttr = procAttr(s.acct)
	return cmd
}

// logTail returns the end of the server log.
func (s *Server) logTail() string {
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", s.logPath, err)
	}
	return tail(data)
}

// tail returns the last lines of out.
func tail(out []byte) string {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	lines = lines[max(0, len(lines)-20):]
	return string(bytes.Join(lines, []byte("\n")))
}
