//go:build unix

package pgserver

import (
	"fmt"
	"io/fs"
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

// blocked returns the first directory on the way from / to dir, dir
// included, that the account may not pass through, or "" when it reaches
// dir. It changes nothing: dynapi never opens up a directory it did not
// make (os.MkdirTemp, t.TempDir and root's home are 0700), since that
// would expose what else is in it.
func (a *account) blocked(dir string) (string, error) {
	if a == nil {
		return "", nil
	}
	var ways []string
	for d := dir; ; d = filepath.Dir(d) {
		ways = append(ways, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	for i := len(ways) - 1; i >= 0; i-- {
		fi, err := os.Stat(ways[i])
		if err != nil {
			return "", fmt.Errorf("stat %s: %w", ways[i], err)
		}
		if !a.canTraverse(fi) {
			return ways[i], nil
		}
	}
	return "", nil
}

// sharedDir holds, when dynapi runs as root, what the postgres user could
// not reach where it was asked for (a cluster under root's home, say): a
// directory of dynapi's own, owned by root, that others may pass through
// but neither list nor write (0711). It is persistent, as a cluster is.
const sharedDir = "/var/lib/dynapi"

// shared makes sharedDir if needed and checks that it is as said.
func (a *account) shared() (string, error) {
	if err := os.MkdirAll(sharedDir, 0o711); err != nil {
		return "", fmt.Errorf("create %s: %w", sharedDir, err)
	}
	fi, err := os.Lstat(sharedDir)
	if err != nil {
		return "", fmt.Errorf("stat %s: %w", sharedDir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || st.Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("%s must be a directory owned by root that only root may write (it is %v)", sharedDir, fi.Mode())
	}
	dir, err := a.blocked(sharedDir)
	switch {
	case err != nil:
		return "", err
	case dir != "":
		return "", fmt.Errorf("the postgres user cannot pass through %s, on the way to %s", dir, sharedDir)
	}
	return sharedDir, nil
}

// openUp lets the account pass through dir, a directory dynapi made.
func (a *account) openUp(dir string) error {
	if a == nil {
		return nil
	}
	if err := os.Chmod(dir, 0o711); err != nil {
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
