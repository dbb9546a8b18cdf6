package reload

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/engine/registry"
)

// deadline is how long a change may take to be served: issue 5 asks for 2 s.
const deadline = 2 * time.Second

// testEnv is a running Reloader over definition folders in a temporary directory.
type testEnv struct {
	t                    *testing.T
	schemas, conversions string
	r                    *Reloader
}

// start writes files (path under the temporary directory → content), then
// runs a Reloader over its schemas and conversions folders until the test ends.
func start(t *testing.T, files map[string]string, opts Options) *testEnv {
	t.Helper()
	dir := t.TempDir()
	e := &testEnv{t: t, schemas: filepath.Join(dir, "schemas"), conversions: filepath.Join(dir, "conversions")}
	for _, d := range []string{e.schemas, e.conversions} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		e.write(name, content)
	}
	e.r = New(e.schemas, e.conversions, opts)
	if err := e.r.Reload(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return e
}

// write writes a file under the temporary directory ("schemas/x.yaml") the
// way editors save: a hidden temporary file renamed over the old one, so
// that no build ever reads it half written.
func (e *testEnv) write(name, content string) {
	e.t.Helper()
	path := e.path(name)
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		e.t.Fatal(err)
	}
}

func (e *testEnv) remove(name string) {
	e.t.Helper()
	if err := os.RemoveAll(e.path(name)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *testEnv) path(name string) string {
	return filepath.Join(filepath.Dir(e.schemas), filepath.FromSlash(name))
}

// waitFor waits until a build satisfies ok, for at most deadline, and
// returns how long it took.
func (e *testEnv) waitFor(what string, ok func(snap *registry.Snapshot, problems []registry.Problem) bool) time.Duration {
	e.t.Helper()
	begin := time.Now()
	timeout := time.NewTimer(deadline)
	defer timeout.Stop()
	for {
		changed := e.r.Changed()
		if ok(e.r.Load(), e.r.Problems()) {
			return time.Since(begin)
		}
		select {
		case <-changed:
		case <-timeout.C:
			e.t.Fatalf("not within %v: %s; problems: %v", deadline, what, e.r.Problems())
		}
	}
}

// served reports whether snap serves plural in group shop.example.com, version v1.
func served(snap *registry.Snapshot, plural string) bool {
	_, _, ok := snap.Lookup("shop.example.com", "v1", plural)
	return ok
}

// hasProblem reports whether one of problems is about file and says words.
func hasProblem(problems []registry.Problem, file, words string) bool {
	for _, p := range problems {
		if p.File == file && strings.Contains(p.Reason, words) {
			return true
		}
	}
	return false
}

// definition is a native definition of kind in shop.example.com, with one
// storage version v1 (and more versions, when given, after it).
func definition(kind, plural string, moreVersions ...string) string {
	return "group: shop.example.com\nkind: " + kind + "\nplural: " + plural + "\nscope: Namespaced\nversions:\n" +
		"- name: v1\n  storage: true\n  schema: {type: object, properties: {spec: {type: object, properties: {color: {type: string}}}}}\n" +
		strings.Join(moreVersions, "")
}

// gadgetV2 is a second version of Gadget, whose color is colour.
const gadgetV2 = "- name: v2\n  schema: {type: object, properties: {spec: {type: object, properties: {colour: {type: string}}}}}\n"

// gadgetRules convert Gadget's v2 to its hub, v1.
const gadgetRules = "group: shop.example.com\nkind: Gadget\nhub: v1\nversions:\n  v2:\n    toHub:\n    - move: {from: spec.colour, to: spec.color}\n"

// baseFiles serve widgets, and gadgets with conversion rules.
var baseFiles = map[string]string{
	"schemas/shop/widget.yaml":     definition("Widget", "widgets"),
	"schemas/shop/gadget.yaml":     definition("Gadget", "gadgets", gadgetV2),
	"conversions/shop/gadget.yaml": gadgetRules,
}
