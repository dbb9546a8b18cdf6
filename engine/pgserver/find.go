package pgserver

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNoBinaries is returned by Start when no PostgreSQL installation is found.
var ErrNoBinaries = errors.New("no PostgreSQL binaries found (looked in PATH, pg_config --bindir, /usr/lib/postgresql/*/bin): " +
	"install PostgreSQL (e.g. apt-get install postgresql) or set DATABASE_URL")

// binSearch says where to look for a PostgreSQL bin directory, in order.
type binSearch struct {
	path  string   // PATH-style list of directories, also searched for pg_config
	globs []string // bin directory patterns; the highest version wins
}

// defaultSearch looks where PostgreSQL packages install their binaries.
func defaultSearch() *binSearch {
	return &binSearch{path: os.Getenv("PATH"), globs: []string{"/usr/lib/postgresql/*/bin"}}
}

// find returns a directory holding both initdb and postgres, or ErrNoBinaries.
func (s *binSearch) find() (string, error) {
	if dir := s.inPath(); dir != "" {
		return dir, nil
	}
	if dir := s.fromPgConfig(); dir != "" {
		return dir, nil
	}
	if dir := s.inGlobs(); dir != "" {
		return dir, nil
	}
	return "", ErrNoBinaries
}

// inPath finds initdb in the PATH. Distributions often link only some
// binaries into /usr/bin, so the link is followed to the real bin directory.
func (s *binSearch) inPath() string {
	for _, dir := range filepath.SplitList(s.path) {
		initdb := filepath.Join(dir, "initdb")
		if !isExecutable(initdb) {
			continue
		}
		if real, err := filepath.EvalSymlinks(initdb); err == nil && isBinDir(filepath.Dir(real)) {
			return filepath.Dir(real)
		}
		if isBinDir(dir) {
			return dir
		}
	}
	return ""
}

// fromPgConfig asks the pg_config found in the PATH for its bin directory.
func (s *binSearch) fromPgConfig() string {
	for _, dir := range filepath.SplitList(s.path) {
		pgConfig := filepath.Join(dir, "pg_config")
		if !isExecutable(pgConfig) {
			continue
		}
		out, err := exec.Command(pgConfig, "--bindir").Output()
		if bin := strings.TrimSpace(string(out)); err == nil && isBinDir(bin) {
			return bin
		}
	}
	return ""
}

// inGlobs returns the highest-versioned bin directory matching the patterns.
func (s *binSearch) inGlobs() string {
	var dirs []string
	for _, pattern := range s.globs {
		matches, _ := filepath.Glob(pattern) // only ErrBadPattern, impossible for fixed patterns
		dirs = append(dirs, matches...)
	}
	slices.SortFunc(dirs, func(a, b string) int { return compareVersions(b, a) })
	for _, dir := range dirs {
		if isBinDir(dir) {
			return dir
		}
	}
	return ""
}

// compareVersions orders paths like /usr/lib/postgresql/9.6/bin and .../15/bin
// by the numbers they contain.
func compareVersions(a, b string) int {
	return slices.Compare(versionOf(a), versionOf(b))
}

// versionOf extracts the numbers of a path's version-like components.
func versionOf(path string) []int {
	var v []int
	for _, f := range strings.FieldsFunc(path, func(r rune) bool { return r < '0' || r > '9' }) {
		n, _ := strconv.Atoi(f) // f holds digits only; overflow sorts as 0
		v = append(v, n)
	}
	return v
}

// isBinDir reports whether dir holds the binaries Start needs.
func isBinDir(dir string) bool {
	return isExecutable(filepath.Join(dir, "initdb")) && isExecutable(filepath.Join(dir, "postgres"))
}

// isExecutable reports whether path is (a link to) an executable file.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
