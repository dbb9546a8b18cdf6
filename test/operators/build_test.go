package operators

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
)

// operatorBinaries builds the programs of build/<operator> (a module whose
// go.mod pins the operator's published module) once per machine and returns
// their paths by program name. The cache directory is keyed by that go.mod
// and go.sum, so a new pin builds again; Go's build cache makes a rebuild
// of the same dependencies cheap. DYNAPI_OPERATORS_CACHE moves the cache.
func operatorBinaries(t *testing.T, operator string, pkgs ...string) map[string]string {
	t.Helper()
	src, _ := filepath.Abs(filepath.Join("build", operator))
	dir, err := cacheDir(src, operator)
	if err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{}
	for _, pkg := range pkgs {
		name := path.Base(pkg)
		if name == "v3" { // a module's major version suffix names no program
			name = path.Base(path.Dir(pkg))
		}
		bins[name] = filepath.Join(dir, name)
		if _, err := os.Stat(bins[name]); err == nil {
			continue
		}
		if err := goBuild(src, pkg, bins[name]); err != nil {
			t.Fatalf("build %s: %v", pkg, err)
		}
	}
	return bins
}

// cacheDir is where the programs of the build module in src are kept.
func cacheDir(src, operator string) (string, error) {
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	root := os.Getenv("DYNAPI_OPERATORS_CACHE")
	if root == "" {
		user, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		root = filepath.Join(user, "dynapi-operators")
	}
	dir := filepath.Join(root, operator+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	return dir, os.MkdirAll(dir, 0o755)
}

// goBuild builds pkg in the module src into out, through a temporary name
// so that an interrupted build leaves no half-written program in the cache.
func goBuild(src, pkg, out string) error {
	tmp := out + ".partial"
	cmd := exec.Command("go", "build", "-mod=readonly", "-o", tmp, pkg)
	cmd.Dir, cmd.Stdout, cmd.Stderr = src, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	return os.Rename(tmp, out)
}
