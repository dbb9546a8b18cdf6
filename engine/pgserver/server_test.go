package pgserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// dataDir returns a new data directory for a persistent server, removed
// with its cluster when the test ends (after Stop, which a later cleanup
// runs first): run as root, the cluster may live outside the test's
// temporary directory.
func dataDir(t *testing.T, elem ...string) string {
	t.Helper()
	dir := filepath.Join(append([]string{t.TempDir()}, elem...)...)
	t.Cleanup(func() {
		if err := Remove(dir); err != nil {
			t.Error(err)
		}
	})
	return dir
}

// psql runs one query against s with the server's own client.
func psql(t *testing.T, s *Server, query string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(s.bin, "psql"), "-X", "-At", "-d", s.URL(), "-c", query).CombinedOutput()
	if err != nil {
		t.Fatalf("psql %q: %v: %s", query, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestStartEphemeral(t *testing.T) {
	s, err := Start(t.Context(), Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := psql(t, s, "select current_setting('listen_addresses') || '|' || current_setting('fsync')"); got != "|off" {
		t.Errorf("listen_addresses|fsync = %q; want \"|off\"", got)
	}
	dirs := []string{filepath.Dir(s.dataDir), s.sockDir}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still exists after Stop (err %v)", dir, err)
		}
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop() = %v", err)
	}
}

// TestStartPersistent checks that a restarted server keeps its data.
func TestStartPersistent(t *testing.T) {
	dataDir := dataDir(t, "nested", ".dynapi")
	s, err := Start(t.Context(), Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	psql(t, s, "create table kept (v int); insert into kept values (42)")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	s, err = Start(t.Context(), Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	if got := psql(t, s, "select v from kept"); got != "42" {
		t.Errorf("after restart kept.v = %q; want 42", got)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "pgdata", "PG_VERSION")); err != nil {
		t.Errorf("cluster not in DataDir/pgdata: %v", err)
	}
}

func TestStartRejectsForeignDirectory(t *testing.T) {
	dataDir := t.TempDir()
	fakeBin(t, filepath.Join(dataDir, "pgdata"), "unrelated")
	_, err := Start(t.Context(), Options{DataDir: dataDir})
	if err == nil || !strings.Contains(err.Error(), "holds no PostgreSQL cluster") {
		t.Fatalf("Start() error = %v; want a 'holds no PostgreSQL cluster' error", err)
	}
}

// TestStartFailureShowsLog starts a second server on a running one's
// cluster: PostgreSQL refuses, and the error carries its log.
func TestStartFailureShowsLog(t *testing.T) {
	dataDir := dataDir(t)
	s, err := Start(t.Context(), Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	_, err = Start(t.Context(), Options{DataDir: dataDir})
	if err == nil || !strings.Contains(err.Error(), `lock file "postmaster.pid" already exists`) {
		t.Fatalf("second Start() error = %v; want the server log's lock file complaint", err)
	}
	if got := psql(t, s, "select 1"); got != "1" {
		t.Errorf("first server after the failed start: %q", got)
	}
}

// TestPID checks that PID names the postmaster, as its postmaster.pid does.
func TestPID(t *testing.T) {
	s, err := Start(t.Context(), Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	data, err := os.ReadFile(filepath.Join(s.dataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if want := strconv.Itoa(s.PID()); first != want || s.PID() <= 0 {
		t.Errorf("PID() = %d; postmaster.pid names %q", s.PID(), first)
	}
}

// TestRunning finds the server a persistent Start left running, and
// nothing once it is stopped.
func TestRunning(t *testing.T) {
	dataDir := dataDir(t)
	if _, ok := Running(dataDir); ok {
		t.Fatal("Running found a server in an empty directory")
	}
	s, err := Start(t.Context(), Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	url, ok := Running(dataDir)
	if !ok {
		t.Fatal("Running did not find the started server")
	}
	out, err := exec.Command(filepath.Join(s.bin, "psql"), "-X", "-At", "-d", url, "-c", "select 1").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Fatalf("psql through Running's URL %s: %v: %s", url, err, out)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, ok := Running(dataDir); ok {
		t.Error("Running found a stopped server")
	}
	// The file a crashed server leaves names a process that is gone.
	stale := "2147483646\n" + s.dataDir + "\n1700000000\n5432\n" + s.sockDir + "\n\n  1234 5678\nready   \n"
	if err := os.WriteFile(filepath.Join(s.dataDir, "postmaster.pid"), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := Running(dataDir); ok {
		t.Error("Running took a stale postmaster.pid for a running server")
	}
}

func TestHaltResume(t *testing.T) {
	s, err := Start(context.Background(), Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	url := s.URL()
	psql(t, s, "create table kept (v int); insert into kept values (7)")
	for _, immediate := range []bool{false, true} {
		if err := s.Halt(immediate); err != nil {
			t.Fatalf("Halt(%v): %v", immediate, err)
		}
		if out, err := exec.Command(filepath.Join(s.bin, "psql"), "-X", "-At", "-d", url, "-c", "select 1").CombinedOutput(); err == nil {
			t.Fatalf("Halt(%v): the server still answers: %s", immediate, out)
		}
		if err := s.Resume(context.Background()); err != nil {
			t.Fatalf("Resume after Halt(%v): %v", immediate, err)
		}
		if s.URL() != url {
			t.Fatalf("URL after Resume = %s, was %s", s.URL(), url)
		}
		if got := psql(t, s, "select v from kept"); got != "7" {
			t.Fatalf("after Halt(%v) and Resume: kept = %q, want 7", immediate, got)
		}
	}
	if err := s.Resume(context.Background()); err == nil {
		t.Error("Resume of a running server succeeded")
	}
}

// TestReplica checks that a replica streams the primary's writes, refuses
// its own, and takes them once promoted.
func TestReplica(t *testing.T) {
	primary, err := Start(t.Context(), Options{Ephemeral: true, Durable: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { primary.Stop() })
	replica, err := Start(t.Context(), Options{Ephemeral: true, Primary: primary})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { replica.Stop() })
	psql(t, primary, "create table t (v int); insert into t values (7)")
	want := psql(t, primary, "select pg_current_wal_lsn()")
	for psql(t, replica, "select pg_last_wal_replay_lsn() >= '"+want+"'") != "t" {
	}
	if got := psql(t, replica, "select pg_is_in_recovery()::text || '|' || (select v from t)"); got != "true|7" {
		t.Errorf("replica: in recovery|v = %q; want \"true|7\"", got)
	}
	if err := primary.Halt(true); err != nil {
		t.Fatal(err)
	}
	if err := replica.Promote(); err != nil {
		t.Fatal(err)
	}
	psql(t, replica, "insert into t values (8)")
	if got := psql(t, replica, "select sum(v) from t"); got != "15" {
		t.Errorf("promoted replica: sum = %q; want 15", got)
	}
}
