package pgserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// prepare lays out the directories and creates the cluster if needed.
//
// Run as root, the server runs as the postgres user, which must reach its
// cluster and socket directories. dynapi changes the permissions of no
// directory it did not make, the user's among them: where the postgres user
// cannot pass, what it needs goes under sharedDir instead.
func (s *Server) prepare(dataDir string) error {
	base, err := s.baseDir(dataDir)
	if err != nil {
		return err
	}
	s.logPath = filepath.Join(base, "postgres.log")
	if s.dataDir, err = s.clusterDir(base); err != nil {
		return err
	}
	parent, err := s.reachable(os.TempDir())
	if err != nil {
		return err
	}
	// The socket directory is short (a socket path must fit 107 bytes) and
	// fresh, so two servers never share one.
	if s.sockDir, err = s.tempDir(parent); err != nil {
		return err
	}
	if err := s.acct.chown(s.sockDir); err != nil {
		return err
	}
	return s.initCluster()
}

// baseDir returns the directory holding the server log and the cluster
// (or, see clusterDir, the link to it).
func (s *Server) baseDir(dataDir string) (string, error) {
	if s.ephemeral {
		return s.ephemeralDir(dataDir)
	}
	if dataDir == "" {
		return "", errors.New("start postgres: a data directory is required unless ephemeral")
	}
	base, err := filepath.Abs(dataDir)
	if err != nil {
		return "", fmt.Errorf("resolve data directory: %w", err)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("create data directory: %w", err)
	}
	return base, nil
}

// ephemeralDir makes the temporary directory of an ephemeral server under
// parent (default: os.TempDir()), or under sharedDir if the postgres user
// cannot reach parent.
func (s *Server) ephemeralDir(parent string) (string, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	parent, err := s.reachable(parent)
	if err != nil {
		return "", err
	}
	base, err := s.tempDir(parent)
	if err != nil {
		return "", err
	}
	// os.MkdirTemp made it 0700; it is dynapi's, and the cluster in it
	// the postgres user's.
	return base, s.acct.openUp(base)
}

// clusterDir returns the cluster's directory: base/pgdata, or where a
// symbolic link base/pgdata leads. A new cluster that the postgres user
// could not reach in base goes under sharedDir, and base/pgdata links to
// it, so that the data directory still finds its cluster (on restart,
// for Running).
func (s *Server) clusterDir(base string) (string, error) {
	link := filepath.Join(base, "pgdata")
	dir, err := filepath.EvalSymlinks(link)
	switch {
	case err == nil:
		return dir, nil // initCluster checks that it is a cluster the postgres user can reach
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("resolve cluster directory: %w", err)
	}
	parent, err := s.reachable(base)
	if err != nil || parent == base {
		return link, err
	}
	if dir, err = os.MkdirTemp(parent, "pgdata-"); err != nil {
		return "", fmt.Errorf("create cluster directory: %w", err)
	}
	if err := os.Symlink(dir, link); err != nil {
		return "", errors.Join(fmt.Errorf("link cluster directory: %w", err), os.Remove(dir))
	}
	return dir, nil
}

// reachable returns dir when the postgres user can reach it, else
// sharedDir, and says so.
func (s *Server) reachable(dir string) (string, error) {
	blocked, err := s.acct.blocked(dir)
	if err != nil || blocked == "" {
		return dir, err
	}
	shared, err := s.acct.shared()
	if err != nil {
		return "", err
	}
	s.log.Warn("the postgres user cannot pass through a directory, whose permissions dynapi leaves alone: "+
		"using a directory of its own instead", "want", dir, "blockedAt", blocked, "using", shared)
	return shared, nil
}

// mustReach fails when the postgres user cannot reach dir, the parent of
// an existing cluster: moving the cluster is the owner's decision.
func (s *Server) mustReach(dir string) error {
	blocked, err := s.acct.blocked(dir)
	if err != nil || blocked == "" {
		return err
	}
	return fmt.Errorf("PostgreSQL runs as the postgres user, which cannot pass through %s to the cluster in %s: "+
		"let it (chmod o+x), or move the data directory", blocked, dir)
}

// tempDir makes a temporary directory under parent that Stop removes.
func (s *Server) tempDir(parent string) (string, error) {
	dir, err := os.MkdirTemp(parent, "dynapi-pg-")
	if err != nil {
		return "", fmt.Errorf("create temporary directory: %w", err)
	}
	s.temps = append(s.temps, dir)
	return dir, nil
}

// removeTemps deletes the temporary directories.
func (s *Server) removeTemps() error {
	var errs []error
	for _, dir := range s.temps {
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", dir, err))
		}
	}
	return errors.Join(errs...)
}

// Remove deletes the data directory of a persistent server that is not
// running, and its cluster wherever that is (see clusterDir).
func Remove(dataDir string) error {
	cluster, err := filepath.EvalSymlinks(filepath.Join(dataDir, "pgdata"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("resolve cluster directory: %w", err)
	}
	if cluster != "" {
		if err := os.RemoveAll(cluster); err != nil {
			return fmt.Errorf("remove cluster: %w", err)
		}
	}
	if err := os.RemoveAll(dataDir); err != nil {
		return fmt.Errorf("remove data directory: %w", err)
	}
	return nil
}
