//go:build unix

package pgserver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestStartLeavesDirectoriesAlone starts servers beneath a directory of
// the caller's that only its owner may enter: run as root, PostgreSQL (the
// postgres user) works elsewhere rather than have it opened up, and its
// log is for its owner alone.
func TestStartLeavesDirectoriesAlone(t *testing.T) {
	tests := []struct {
		name string
		opts func(parent string) Options
	}{
		{"persistent", func(parent string) Options { return Options{DataDir: filepath.Join(parent, ".dynapi")} }},
		{"ephemeral", func(parent string) Options { return Options{DataDir: parent, Ephemeral: true} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			if err := os.Chmod(parent, 0o700); err != nil {
				t.Fatal(err)
			}
			before := modes(t, parent)
			opts := tt.opts(parent)
			s, err := Start(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := errors.Join(s.Stop(), Remove(opts.DataDir)); err != nil {
					t.Error(err)
				}
			})
			if got := psql(t, s, "select 1"); got != "1" {
				t.Errorf("select 1 = %q", got)
			}
			if after := modes(t, parent); after != before {
				t.Errorf("modes from / to the caller's directory: %s before Start, %s after", before, after)
			}
			wantPrivate(t, s)
		})
	}
}

// modes lists the permissions of dir and of every directory above it.
func modes(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d+" "+fi.Mode().String())
		if d == filepath.Dir(d) {
			return strings.Join(out, ", ")
		}
	}
}

// wantPrivate checks that s's log is its owner's alone, and that owner
// the server's account.
func wantPrivate(t *testing.T, s *Server) {
	t.Helper()
	fi, err := os.Stat(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("server log %s is %v; want no access for group or others", s.logPath, fi.Mode())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && s.acct != nil && int(st.Uid) != s.acct.uid {
		t.Errorf("server log owned by uid %d; want the postgres user's %d", st.Uid, s.acct.uid)
	}
}

// TestStartExistingClusterOutOfReach closes up the directory above a
// cluster: the next Start says what to do rather than open it up again.
func TestStartExistingClusterOutOfReach(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the postgres user is only used as root")
	}
	parent, err := os.MkdirTemp("", "dynapi-reach-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o711); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(parent, "data")
	s, err := Start(t.Context(), Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err = Start(t.Context(), Options{DataDir: dataDir})
	if err == nil || !strings.Contains(err.Error(), "cannot pass through "+parent+" ") {
		t.Fatalf("Start with the cluster out of reach: %v", err)
	}
	if got := modes(t, parent); !strings.HasPrefix(got, parent+" drwx------,") {
		t.Errorf("after Start: %s; want %s left 0700", got, parent)
	}
}
