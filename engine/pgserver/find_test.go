package pgserver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fakeBin makes dir a bin directory holding the named executables.
func fakeBin(t *testing.T, dir string, names ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBinSearchFind(t *testing.T) {
	root := t.TempDir()
	real := fakeBin(t, filepath.Join(root, "pg/17/bin"), "initdb", "postgres")
	linked := filepath.Join(root, "usr-bin")
	fakeBin(t, linked)
	if err := os.Symlink(filepath.Join(real, "initdb"), filepath.Join(linked, "initdb")); err != nil {
		t.Fatal(err)
	}
	fakeBin(t, filepath.Join(root, "versions/9.6/bin"), "initdb", "postgres")
	newest := fakeBin(t, filepath.Join(root, "versions/15/bin"), "initdb", "postgres")
	fakeBin(t, filepath.Join(root, "versions/16/bin"), "initdb") // incomplete: no postgres
	empty := fakeBin(t, filepath.Join(root, "empty"))

	tests := []struct {
		name   string
		search binSearch
		want   string
	}{
		{"PATH holds both", binSearch{path: real}, real},
		{"PATH link followed to the real directory", binSearch{path: empty + string(os.PathListSeparator) + linked}, real},
		{"highest complete version", binSearch{path: empty, globs: []string{filepath.Join(root, "versions/*/bin")}}, newest},
		{"PATH before globs", binSearch{path: real, globs: []string{filepath.Join(root, "versions/*/bin")}}, real},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.search.find()
			if err != nil || got != tt.want {
				t.Errorf("find() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestStartWithoutBinaries(t *testing.T) {
	empty := t.TempDir()
	search := &binSearch{path: empty, globs: []string{filepath.Join(empty, "*/bin")}}
	_, err := Start(t.Context(), Options{Ephemeral: true, search: search})
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("Start() error = %v; want ErrNoBinaries", err)
	}
	const want = "no PostgreSQL binaries found (looked in PATH, pg_config --bindir, /usr/lib/postgresql/*/bin): " +
		"install PostgreSQL (e.g. apt-get install postgresql) or set DATABASE_URL"
	if err.Error() != want {
		t.Errorf("message = %q; want %q", err, want)
	}
}

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/9.6/bin", 1},
		{"/usr/lib/postgresql/13/bin", "/usr/lib/postgresql/16/bin", -1},
		{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/15/bin", 0},
	}
	for _, tt := range tests {
		if got := compareVersions(tt.a, tt.b); got != tt.want {
			t.Errorf("compareVersions(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
