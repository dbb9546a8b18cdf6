//go:build unix

package pgserver

import (
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// account is the unprivileged user PostgreSQL runs as when dynapi runs as
// root, since PostgreSQL refuses to run as root. A nil *account means the
// server runs as the current user, and its methods do nothing.
type account struct{ uid, gid int }

// serverAccount returns the postgres user when running as root, else nil.
func serverAccount() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("look up user postgres to run PostgreSQL as (it refuses to run as root): %w", err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, fmt.Errorf("parse uid of user postgres: %w", err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil, fmt.Errorf("parse gid of user postgres: %w", err)
	}
	return &account{uid: uid, gid: gid}, nil
}

// credential is what the child processes run as; nil keeps the current user.
func (a *account) credential() *syscall.Credential {
	if a == nil {
		return nil
	}
	return &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid), Groups: []uint32{}}
}

// chown gives path to the account.
func (a *account) chown(path string) error {
	if a == nil {
		return nil
	}
	if err := os.Lchown(path, a.uid, a.gid); err != nil {
		return fmt.Errorf("chown %s to postgres: %w", path, err)
	}
	return nil
}

// chownTree gives dir and everything in it to the account, unless dir is
// already its own (a data directory reused from an earlier run).
func (a *account) chownTree(dir string) error {
	if a == nil {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("stat %s: %w", dir, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == a.uid {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return a.chown(path)
	})
}

// makeTraversable adds the others' search bit to every ancestor of path
// that the account could not pass through: os.MkdirTemp and t.TempDir make
// 0700 directories, and root's home is often 0700 too.
func (a *account) makeTraversable(path string, log *slog.Logger) error {
	if a == nil {
		return nil
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if err := a.traverse(dir, log); err != nil {
			return err
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}

// traverse makes one directory traversable by the account.
func (a *account) traverse(dir string, log *slog.Logger) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("stat %s: %w", dir, err)
	}
	if a.canTraverse(fi) {
		return nil
	}
	mode := fi.Mode().Perm() | 0o001
	log.Warn("making directory traversable for the postgres user", "dir", dir, "mode", mode)
	if err := os.Chmod(dir, mode); err != nil {
		return fmt.Errorf("chmod %s: %w", dir, err)
	}
	return nil
}

// canTraverse reports whether the account may search the directory fi.
// Supplementary groups are ignored: adding a bit is harmless.
func (a *account) canTraverse(fi fs.FileInfo) bool {
	mode := fi.Mode().Perm()
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return true
	case int(st.Uid) == a.uid:
		return mode&0o100 != 0
	case int(st.Gid) == a.gid:
		return mode&0o010 != 0
	default:
		return mode&0o001 != 0
	}
}
