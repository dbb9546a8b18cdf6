package reload

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/dynapi/dynapi/engine/registry"
)

// A new, changed or removed file takes effect within 2 s, new folders included.
func TestHotReload(t *testing.T) {
	t.Parallel()
	e := start(t, baseFiles, Options{})
	steps := []struct {
		name string
		do   func()
		ok   func(*registry.Snapshot) bool
	}{
		{"new file", func() { e.write("schemas/shop/sprocket.yaml", definition("Sprocket", "sprockets")) },
			func(s *registry.Snapshot) bool { return served(s, "sprockets") }},
		{"changed file", func() {
			e.write("schemas/shop/sprocket.yaml", definition("Sprocket", "sprockets")+"shortNames: [spr]\n")
		}, func(s *registry.Snapshot) bool {
			r, ok := s.ResourceByKind("shop.example.com", "Sprocket")
			return ok && len(r.ShortNames) == 1
		}},
		{"removed file", func() { e.remove("schemas/shop/sprocket.yaml") },
			func(s *registry.Snapshot) bool { return !served(s, "sprockets") }},
		{"file in a new folder", func() { e.write("schemas/more/deep/cog.yaml", definition("Cog", "cogs")) },
			func(s *registry.Snapshot) bool { return served(s, "cogs") }},
		{"removed folder", func() { e.remove("schemas/more") },
			func(s *registry.Snapshot) bool { return !served(s, "cogs") }},
	}
	for _, s := range steps {
		s.do()
		took := e.waitFor(s.name, func(snap *registry.Snapshot, _ []registry.Problem) bool { return s.ok(snap) })
		t.Logf("%s: served after %v", s.name, took)
	}
	if !served(e.r.Load(), "widgets") || len(e.r.Problems()) > 0 {
		t.Fatalf("widgets lost, or problems: %v", e.r.Problems())
	}
}

// Each bad file is refused while everything that served before serves on,
// the broken file's own previous definition included.
func TestBadFilesAreRefused(t *testing.T) {
	t.Parallel()
	e := start(t, baseFiles, Options{})
	tests := []struct {
		name, file, content string
		problemFile, words  string
		rules               bool // the problem is in a conversion rules file
	}{
		{"syntax error", "schemas/shop/widget.yaml", "group: shop.example.com\nkind: [Widget\n", "shop/widget.yaml", "invalid YAML", false},
		{"invalid schema", "schemas/shop/widget.yaml", "group: shop.example.com\nkind: Widget\nplural: widgets\nscope: Namespaced\n" +
			"versions:\n- name: v1\n  storage: true\n  schema: {type: objekt}\n", "shop/widget.yaml", `unknown type "objekt"`, false},
		{"conflicting plural", "schemas/shop/a-rival.yaml", definition("Rival", "widgets"), "shop/a-rival.yaml", "already defined in shop/widget.yaml", false},
		{"two storage versions", "schemas/shop/widget.yaml", definition("Widget", "widgets", "- name: v2\n  storage: true\n  schema: {type: object}\n"),
			"shop/widget.yaml", "exactly one version must be the storage version", false},
		{"unknown rule", "conversions/shop/gadget.yaml", gadgetRules + "    - frobnicate: {path: spec.x}\n", "shop/gadget.yaml", `unknown rule "frobnicate"`, true},
		{"rules for a kind that does not exist", "conversions/shop/nothing.yaml", "group: shop.example.com\nkind: Nothing\nhub: v1\n",
			"shop/nothing.yaml", "no such kind is loaded", true},
	}
	for _, tt := range tests {
		before, hadFile := baseFiles[tt.file]
		e.write(tt.file, tt.content)
		e.waitFor(tt.name+" refused", func(_ *registry.Snapshot, problems []registry.Problem) bool {
			return hasProblemIn(problems, tt.problemFile, tt.words, tt.rules)
		})
		snap := e.r.Load()
		gadgets, _ := snap.ResourceByKind("shop.example.com", "Gadget")
		if !served(snap, "widgets") || !served(snap, "gadgets") || gadgets.Conversion == nil {
			t.Fatalf("%s: what served before does not serve as it did: %v", tt.name, snap.Resources())
		}
		if hadFile {
			e.write(tt.file, before)
		} else {
			e.remove(tt.file)
		}
		e.waitFor(tt.name+" fixed", func(snap *registry.Snapshot, problems []registry.Problem) bool {
			return len(problems) == 0 && len(fromFiles(snap)) == 2
		})
	}
}

func hasProblemIn(problems []registry.Problem, file, words string, rules bool) bool {
	for _, p := range problems {
		if p.Conversion == rules && hasProblem([]registry.Problem{p}, file, words) {
			return true
		}
	}
	return false
}

// The schemas folder goes away (a volume unmounted, a folder moved away
// to be replaced): everything serves on, and what comes back is served.
func TestFolderReplaced(t *testing.T) {
	t.Parallel()
	e := start(t, baseFiles, Options{})
	if err := os.Rename(e.schemas, e.schemas+".old"); err != nil {
		t.Fatal(err)
	}
	e.waitFor("folder gone reported", func(snap *registry.Snapshot, problems []registry.Problem) bool {
		return hasProblem(problems, ".", "")
	})
	if !served(e.r.Load(), "widgets") || !e.r.Load().Stale(resourceOf(e.r.Load(), "Widget")) {
		t.Fatalf("widgets do not serve on: %v", e.r.Load().Resources())
	}
	e.write("schemas/shop/widget.yaml", definition("Widget", "widgets"))
	e.write("schemas/shop/gadget.yaml", definition("Gadget", "gadgets", gadgetV2)+"shortNames: [gg]\n")
	e.waitFor("folder back", func(snap *registry.Snapshot, problems []registry.Problem) bool {
		g := resourceOf(snap, "Gadget")
		return len(problems) == 0 && served(snap, "widgets") && g != nil && len(g.ShortNames) == 1 && !snap.Stale(g)
	})
}

func resourceOf(snap *registry.Snapshot, kind string) *registry.Resource {
	r, _ := snap.ResourceByKind("shop.example.com", kind)
	return r
}

func TestChangedIsABroadcast(t *testing.T) {
	t.Parallel()
	r := New(t.TempDir(), "", Options{})
	a, b := r.Changed(), r.Changed()
	if err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan struct{}{a, b} {
		select {
		case <-ch:
		default:
			t.Fatal("Changed not closed by a swap")
		}
	}
	select {
	case <-r.Changed():
		t.Fatal("the next Changed is closed already")
	default:
	}
}

func TestAPIDefinitions(t *testing.T) {
	t.Parallel()
	e := start(t, baseFiles, Options{})
	crd := func(plural, kind string) []byte {
		return []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + plural + `.stable.example.com"},
"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"` + plural + `","kind":"` + kind + `"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`)
	}
	e.r.SetAPIDefinitions(map[string][]byte{"crontabs.stable.example.com": crd("crontabs", "CronTab")})
	r, ok := e.r.Load().ResourceByKind("stable.example.com", "CronTab")
	if !ok || r.File != "api/crontabs.stable.example.com" {
		t.Fatalf("CronTab not served at once: %+v", r)
	}
	// A file claims the same plural: the file wins, and the problem says why.
	e.write("schemas/stable/rival.yaml", "group: stable.example.com\nkind: Rival\nplural: crontabs\nscope: Namespaced\nversions:\n- {name: v1, storage: true, schema: {type: object}}\n")
	e.waitFor("the file wins", func(snap *registry.Snapshot, problems []registry.Problem) bool {
		r, ok := snap.ResourceByKind("stable.example.com", "Rival")
		return ok && r.File == "stable/rival.yaml" && hasProblem(problems, "api/crontabs.stable.example.com", "definition files take precedence")
	})
	e.r.SetAPIDefinitions(nil)
	if hasProblem(e.r.Problems(), "api/crontabs.stable.example.com", "") {
		t.Fatalf("a removed definition still has problems: %v", e.r.Problems())
	}
}

// checker is a Preview that finds what it is told, and records what it was asked.
type checker struct {
	breaks bool
	err    error
	asked  []string
}

func (c *checker) preview(_ context.Context, prev, next *registry.Resource) (SchemaCheck, error) {
	c.asked = append(c.asked, next.Kind)
	check := SchemaCheck{Group: next.Group, Resource: next.Plural, File: next.File, Objects: 3}
	if c.breaks {
		check.Invalid = 2
		check.Examples = []SchemaExample{{Namespace: "default", Name: "a", Version: "v1", Problem: "spec.color: Invalid value"}}
	}
	return check, c.err
}

func TestSchemaChangePolicy(t *testing.T) {
	t.Parallel()
	narrower := "group: shop.example.com\nkind: Widget\nplural: widgets\nscope: Namespaced\nversions:\n" +
		"- name: v1\n  storage: true\n  schema: {type: object, properties: {spec: {type: object, properties: {color: {type: string, enum: [red]}}}}}\n"
	tests := []struct {
		name     string
		policy   Policy
		check    checker
		applied  bool
		problems int
	}{
		{"report, breaking", PolicyReport, checker{breaks: true}, true, 0},
		{"refuse, harmless", PolicyRefuse, checker{}, true, 0},
		{"refuse, breaking", PolicyRefuse, checker{breaks: true}, false, 1},
		{"refuse, check failed", PolicyRefuse, checker{err: errors.New("database down")}, false, 1},
		{"report, check failed", PolicyReport, checker{err: errors.New("database down")}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := start(t, baseFiles, Options{Policy: tt.policy, Preview: tt.check.preview})
			e.write("schemas/shop/widget.yaml", narrower)
			e.waitFor("the change considered", func(snap *registry.Snapshot, problems []registry.Problem) bool {
				v, _ := resourceOf(snap, "Widget").Version("v1")
				return len(problems) > 0 || strings.Contains(string(v.Schema.Raw()), "enum")
			})
			snap := e.r.Load()
			if applied := !snap.Stale(resourceOf(snap, "Widget")); applied != tt.applied {
				t.Errorf("applied = %v, want %v", applied, tt.applied)
			}
			if len(e.r.Problems()) != tt.problems {
				t.Errorf("problems: %v", e.r.Problems())
			}
			if tt.check.err == nil {
				checks := e.r.SchemaChecks()
				if len(checks) != 1 || checks[0].Resource != "widgets" || checks[0].Refused == tt.applied {
					t.Errorf("schema checks: %+v; want one of widgets, refused %v", checks, !tt.applied)
				}
			}
			if len(tt.check.asked) == 0 || tt.check.asked[0] != "Widget" {
				t.Errorf("Preview asked about %v", tt.check.asked)
			}
		})
	}
}

// TestMetrics follows the metrics over a sequence of good and bad files:
// a build that swapped new definitions in is a success, problems or not,
// and moves the timestamp; the problems are counted per file, and gone
// when the file is fixed; only a folder that cannot be read is a failure.
func TestMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	dir := t.TempDir()
	e := &testEnv{t: t, schemas: filepath.Join(dir, "schemas"), conversions: filepath.Join(dir, "conversions")}
	for name, content := range baseFiles {
		e.write(name, content)
	}
	var clock int64
	e.r = New(e.schemas, e.conversions, Options{Registerer: reg, Now: func() time.Time { clock++; return time.Unix(clock, 0) }})
	widget, gadget := filepath.Join(e.schemas, "shop", "widget.yaml"), filepath.Join(e.schemas, "shop", "gadget.yaml")
	steps := []struct {
		name             string
		change           func()
		success, failure float64
		problems         map[string]float64 // file → problems
		lastSuccess      int64
	}{
		{"good files", func() {}, 1, 0, nil, 1},
		{"a bad file", func() { e.write("schemas/shop/widget.yaml", "kind: [\n") }, 2, 0, map[string]float64{widget: 1}, 2},
		{"a second bad file", func() { e.write("schemas/shop/gadget.yaml", "kind: [\n") }, 3, 0, map[string]float64{widget: 1, gadget: 1}, 3},
		{"an unrelated good change", func() { e.write("schemas/shop/thing.yaml", definition("Thing", "things")) }, 4, 0,
			map[string]float64{widget: 1, gadget: 1}, 4},
		{"both fixed", func() {
			e.write("schemas/shop/widget.yaml", baseFiles["schemas/shop/widget.yaml"])
			e.write("schemas/shop/gadget.yaml", baseFiles["schemas/shop/gadget.yaml"])
		},
			5, 0, nil, 5},
		{"the folder gone", func() { e.remove("schemas") }, 5, 1, map[string]float64{e.schemas: 1}, 5},
	}
	for _, st := range steps {
		st.change()
		_ = e.r.Reload() // an error for the folder gone, told by the metrics too
		if got := testutil.ToFloat64(e.r.metrics.reloads.WithLabelValues("success")); got != st.success {
			t.Errorf(`%s: dynapi_reloads_total{result="success"} = %v, want %v`, st.name, got, st.success)
		}
		if got := testutil.ToFloat64(e.r.metrics.reloads.WithLabelValues("failure")); got != st.failure {
			t.Errorf(`%s: dynapi_reloads_total{result="failure"} = %v, want %v`, st.name, got, st.failure)
		}
		if got := testutil.ToFloat64(e.r.metrics.lastSuccess); got != float64(st.lastSuccess) {
			t.Errorf("%s: dynapi_last_reload_success_timestamp_seconds = %v, want %v", st.name, got, st.lastSuccess)
		}
		if n := testutil.CollectAndCount(e.r.metrics.problems); n != len(st.problems) {
			t.Errorf("%s: dynapi_definition_problems has %d series, want %d", st.name, n, len(st.problems))
		}
		for file, want := range st.problems {
			if got := testutil.ToFloat64(e.r.metrics.problems.WithLabelValues(file)); got != want {
				t.Errorf("%s: dynapi_definition_problems{file=%q} = %v, want %v", st.name, file, got, want)
			}
		}
	}
	if got := testutil.ToFloat64(e.r.metrics.loaded); got != float64(len(e.r.Load().Resources())) {
		t.Errorf("dynapi_definitions_loaded = %v", got)
	}
}

// OnSwap sees every snapshot swapped in, after it is published.
func TestOnSwap(t *testing.T) {
	t.Parallel()
	var r *Reloader
	var seen []*registry.Snapshot
	r = New(t.TempDir(), "", Options{OnSwap: func(s *registry.Snapshot) {
		if r.Load() != s {
			t.Error("OnSwap called before the snapshot is published")
		}
		seen = append(seen, s)
	}})
	for range 2 {
		if err := r.Reload(); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 2 || seen[1] != r.Load() {
		t.Fatalf("OnSwap saw %d snapshots; want 2, the last one current", len(seen))
	}
}

// TestLoadedIsLoggedOnChange: "definitions loaded" is logged at Info by a
// build that read something new (files or API definitions), at Debug by
// one that read the same as the build before it.
func TestLoadedIsLoggedOnChange(t *testing.T) {
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil)) // Info and above
	e := &testEnv{t: t, schemas: filepath.Join(t.TempDir(), "schemas")}
	e.write("schemas/shop/widget.yaml", definition("Widget", "widgets"))
	e.r = New(e.schemas, "", Options{Logger: logger})
	steps := []struct {
		what  string
		build func()
		want  int // "definitions loaded" lines so far
	}{
		{"first build", func() { _ = e.r.Reload() }, 1},
		{"same files", func() { _ = e.r.Reload() }, 1},
		{"a file changed", func() {
			e.write("schemas/shop/widget.yaml", definition("Widget", "widgets")+"\n# edited\n")
			_ = e.r.Reload()
		}, 2},
		{"an API definition", func() { e.r.SetAPIDefinitions(map[string][]byte{"x": []byte("{}")}) }, 3},
		{"the same API definition", func() { e.r.SetAPIDefinitions(map[string][]byte{"x": []byte("{}")}) }, 3},
	}
	for _, s := range steps {
		s.build()
		if got := strings.Count(log.String(), "definitions loaded"); got != s.want {
			t.Fatalf("after %s: %d \"definitions loaded\" lines; want %d:\n%s", s.what, got, s.want, log.String())
		}
	}
}

// TestUnenforcedIsLogged: a definition that declares what dynapi does not
// do (a conversion webhook that a rules file overrides) is served, and
// says so in the log when it is added or changes what it declares, not at
// every build.
func TestUnenforcedIsLogged(t *testing.T) {
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	dir := t.TempDir()
	e := &testEnv{t: t, schemas: filepath.Join(dir, "schemas"), conversions: filepath.Join(dir, "conversions")}
	hooked := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.shop.example.com}
spec:
  group: shop.example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: "https://example.com/convert"}}}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}
`
	e.write("schemas/shop/widget.yaml", hooked)
	e.write("conversions/shop/widget.yaml", "group: shop.example.com\nkind: Widget\nhub: v1\nversions:\n  v2:\n    toHub: []\n")
	e.r = New(e.schemas, e.conversions, Options{Logger: logger})
	steps := []struct {
		what  string
		build func()
		want  int
	}{
		{"first build", func() { _ = e.r.Reload() }, 1},
		{"same declarations", func() { e.write("schemas/shop/widget.yaml", hooked+"\n# edited\n"); _ = e.r.Reload() }, 1},
		{"declarations gone", func() {
			e.write("schemas/shop/widget.yaml", definition("Widget", "widgets", "- name: v2\n  schema: {type: object}\n"))
			_ = e.r.Reload()
		}, 1},
		{"declared again", func() { e.write("schemas/shop/widget.yaml", hooked); _ = e.r.Reload() }, 2},
	}
	for _, s := range steps {
		s.build()
		if got := strings.Count(log.String(), `unenforced="conversion: the webhook is not called; the rules in shop/widget.yaml convert`); got != s.want {
			t.Fatalf("after %s: %d warnings; want %d:\n%s", s.what, got, s.want, log.String())
		}
	}
	if _, ok := e.r.Load().ResourceByKind("shop.example.com", "Widget"); !ok {
		t.Error("the definition is not served")
	}
}

// TestRefusedLogsLineWhenKnown: a problem with a line says it; one without
// (a name another file holds) does not say line=0.
func TestRefusedLogsLineWhenKnown(t *testing.T) {
	var log bytes.Buffer
	e := &testEnv{t: t, schemas: filepath.Join(t.TempDir(), "schemas")}
	e.write("schemas/a/widget.yaml", definition("Widget", "widgets"))
	e.write("schemas/b/widget.yaml", definition("Widget", "widgets"))
	e.write("schemas/c/broken.yaml", "group: [\n")
	e.r = New(e.schemas, "", Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	_ = e.r.Reload()
	var taken, broken string
	for _, line := range strings.Split(log.String(), "\n") {
		switch {
		case strings.Contains(line, "b/widget.yaml"):
			taken = line
		case strings.Contains(line, "broken.yaml"):
			broken = line
		}
	}
	if !strings.Contains(taken, "definition refused") || strings.Contains(taken, "line=") {
		t.Errorf("name taken: %q; want a refusal without a line", taken)
	}
	if !strings.Contains(broken, "line=") || strings.Contains(broken, "line=0") {
		t.Errorf("syntax error: %q; want its line", broken)
	}
}

// TestUnmatchedRuntimeConfigIsLogged: a runtime-config key that matches
// nothing is a warning at the build that finds it so, not at every build,
// and again when the definition it matched goes away.
func TestUnmatchedRuntimeConfigIsLogged(t *testing.T) {
	var log bytes.Buffer
	config, err := registry.ParseRuntimeConfig("shop.example.com/v1=false,labs.example.com=false")
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{t: t, schemas: filepath.Join(t.TempDir(), "schemas")}
	e.write("schemas/shop/widget.yaml", definition("Widget", "widgets"))
	e.r = New(e.schemas, "", Options{Logger: slog.New(slog.NewTextHandler(&log, nil)), RuntimeConfig: config})
	steps := []struct {
		what       string
		build      func()
		labs, shop int // warnings so far for each key
	}{
		{"first build", func() { _ = e.r.Reload() }, 1, 0},
		{"same files", func() { _ = e.r.Reload() }, 1, 0},
		{"shop removed", func() { e.remove("schemas/shop/widget.yaml"); _ = e.r.Reload() }, 1, 1},
	}
	for _, s := range steps {
		s.build()
		labs := strings.Count(log.String(), `runtime-config key matches no API group or version" key=labs.example.com`)
		shop := strings.Count(log.String(), `runtime-config key matches no API group or version" key=shop.example.com/v1`)
		if labs != s.labs || shop != s.shop {
			t.Fatalf("after %s: %d and %d warnings; want %d and %d:\n%s", s.what, labs, shop, s.labs, s.shop, log.String())
		}
	}
}

// fromFiles are the resources of a snapshot that come from definition
// files, not built in.
func fromFiles(snap *registry.Snapshot) []*registry.Resource {
	var out []*registry.Resource
	for _, r := range snap.Resources() {
		if !registry.IsBuiltinFile(r.File) {
			out = append(out, r)
		}
	}
	return out
}

// TestBuiltinIsLoggedByItsOwnName: a built-in definition is logged by its
// embedded name ("builtin:core/configmap.yaml"), not as a file of the
// schemas folder, where a user would look for it in vain.
func TestBuiltinIsLoggedByItsOwnName(t *testing.T) {
	var log bytes.Buffer
	e := &testEnv{t: t, schemas: filepath.Join(t.TempDir(), "schemas")}
	e.write("schemas/shop/widget.yaml", definition("Widget", "widgets"))
	e.r = New(e.schemas, "", Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err := e.r.Reload(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"file=builtin:core/configmap.yaml", "file=" + filepath.Join(e.schemas, "shop", "widget.yaml")} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

// TestWarningsAreNoFailure: rules for a kind no definition loads, and a
// conversions folder that does not exist, refuse nothing: the build is a
// success, Reload no error, and the log says warning, not refused.
func TestWarningsAreNoFailure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		conversions func(e *testEnv) string
		want        string
	}{
		{"rules for a kind not loaded", func(e *testEnv) string {
			e.write("conversions/shop/tube.yaml", strings.ReplaceAll(gadgetRules, "Gadget", "Tube"))
			return e.conversions
		}, "Tube.shop.example.com: no such kind is loaded"},
		{"no conversions folder", func(e *testEnv) string { return filepath.Join(e.conversions, "nowhere") }, "no such folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log bytes.Buffer
			dir := t.TempDir()
			e := &testEnv{t: t, schemas: filepath.Join(dir, "schemas"), conversions: filepath.Join(dir, "conversions")}
			e.write("schemas/shop/widget.yaml", definition("Widget", "widgets"))
			e.r = New(e.schemas, tt.conversions(e), Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if err := e.r.Reload(); err != nil {
				t.Fatalf("Reload: %v", err)
			}
			if got := testutil.ToFloat64(e.r.metrics.reloads.WithLabelValues("success")); got != 1 {
				t.Errorf(`dynapi_reloads_total{result="success"} = %v; want 1`, got)
			}
			if n := testutil.CollectAndCount(e.r.metrics.problems); n != 0 {
				t.Errorf("dynapi_definition_problems has %d series; want none", n)
			}
			if !strings.Contains(log.String(), `msg="definitions warning"`) || !strings.Contains(log.String(), tt.want) ||
				strings.Contains(log.String(), "definition refused") || !strings.Contains(log.String(), "problems=0 warnings=1") {
				t.Errorf("log:\n%s", log.String())
			}
		})
	}
}
