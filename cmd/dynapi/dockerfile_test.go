package main

import (
	"encoding/json"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// dockerfile is what the container tests read of ../../Dockerfile: each
// stage's instructions, the keyword upper-cased, continuation lines
// joined, comments left out.
type dockerfile struct {
	stages [][]instruction
}

type instruction struct {
	keyword string // FROM, RUN, ENV, ...
	args    string // the rest of the line
}

// readDockerfile parses the Dockerfile file (the subset of the syntax
// it uses: no heredocs, no parser directives).
func readDockerfile(t *testing.T, file string) dockerfile {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var d dockerfile
	var line string
	for raw := range strings.Lines(string(data)) {
		raw = strings.TrimSpace(raw)
		if strings.HasPrefix(raw, "#") || raw == "" && line == "" {
			continue
		}
		if cont, ok := strings.CutSuffix(raw, `\`); ok {
			line += cont + " "
			continue
		}
		line += raw
		keyword, args, _ := strings.Cut(line, " ")
		line = ""
		in := instruction{keyword: strings.ToUpper(keyword), args: strings.TrimSpace(args)}
		if in.keyword == "FROM" {
			d.stages = append(d.stages, nil)
		}
		if len(d.stages) == 0 {
			t.Fatalf("%s: %s before FROM", file, in.keyword)
		}
		d.stages[len(d.stages)-1] = append(d.stages[len(d.stages)-1], in)
	}
	return d
}

// final is the last stage: the image.
func (d dockerfile) final() []instruction { return d.stages[len(d.stages)-1] }

// find returns the arguments of each instruction of keyword in stage.
func find(stage []instruction, keyword string) []string {
	var out []string
	for _, in := range stage {
		if in.keyword == keyword {
			out = append(out, in.args)
		}
	}
	return out
}

// execForm reads an instruction's JSON (exec) form, which is what runs
// without a shell: the only form a distroless image can run.
func execForm(t *testing.T, keyword, args string) []string {
	t.Helper()
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil || len(argv) == 0 {
		t.Fatalf("%s %s: not the exec form [\"program\", ...] (the image has no shell): %v", keyword, args, err)
	}
	return argv
}

// imageEnv is the environment the final stage's ENV instructions set
// (the key=value form).
func imageEnv(t *testing.T, d dockerfile) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, args := range find(d.final(), "ENV") {
		for _, kv := range strings.Fields(args) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("ENV %s: write key=value", args)
			}
			env[k] = v
		}
	}
	return env
}

// compose is the part of the Compose specification that
// docker-compose.yaml uses: read strictly, so that a misspelt key fails.
type compose struct {
	Services map[string]composeService `json:"services"`
	Volumes  map[string]*struct{}      `json:"volumes"`
}

type composeService struct {
	Image       string            `json:"image"`
	Build       string            `json:"build"`
	Command     []string          `json:"command"`
	Environment map[string]string `json:"environment"`
	Ports       []string          `json:"ports"`
	Volumes     []string          `json:"volumes"`
	Healthcheck *struct {
		Test     []string `json:"test"`
		Interval string   `json:"interval"`
		Retries  int      `json:"retries"`
	} `json:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `json:"condition"`
	} `json:"depends_on"`
	Restart string `json:"restart"`
}

func readCompose(t *testing.T, file string) compose {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return c
}

// dockerignored reports whether Docker leaves p (slash-separated,
// relative to the context) out of the build context under patterns: a
// pattern matches the path or one of its parents; "**/" matches any
// number of folders. No "!" exceptions: the file has none.
func dockerignored(patterns []string, p string) bool {
	parts := strings.Split(p, "/")
	for _, pat := range patterns {
		for i := 1; i <= len(parts); i++ {
			if matchIgnore(pat, parts[:i]) {
				return true
			}
		}
	}
	return false
}

// matchIgnore matches one pattern against the path made of parts.
func matchIgnore(pat string, parts []string) bool {
	if rest, ok := strings.CutPrefix(pat, "**/"); ok {
		for i := range parts {
			if matchIgnore(rest, parts[i:]) {
				return true
			}
		}
		return false
	}
	ok, _ := path.Match(pat, strings.Join(parts, "/"))
	return ok
}

// readDockerignore returns the patterns of file.
func readDockerignore(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, path.Clean(strings.TrimPrefix(line, "/")))
		}
	}
	return patterns
}

// image is what the final stage makes of the container.
type image struct {
	entrypoint, cmd, healthcheck []string
	env                          map[string]string
	user                         string
	builtFrom                    string          // the build stage's file copied to entrypoint[0]
	owned                        map[string]bool // folders copied with --chown to user
}

// imageOf reads the final stage of d.
func imageOf(t *testing.T, d dockerfile) image {
	t.Helper()
	final := d.final()
	img := image{env: imageEnv(t, d), owned: map[string]bool{}}
	for keyword, dst := range map[string]*[]string{"ENTRYPOINT": &img.entrypoint, "CMD": &img.cmd} {
		if args := find(final, keyword); len(args) == 1 {
			*dst = execForm(t, keyword, args[0])
		} else {
			t.Fatalf("final stage: %d %s, want one", len(args), keyword)
		}
	}
	if users := find(final, "USER"); len(users) > 0 {
		img.user = users[len(users)-1]
	}
	img.healthcheck = healthcheckOf(t, final)
	for _, args := range find(final, "COPY") {
		f := strings.Fields(args)
		if len(f) < 3 || f[0] != "--from=build" && !strings.HasPrefix(f[1], "--from=build") {
			continue
		}
		src, dst := f[len(f)-2], f[len(f)-1]
		if dst == img.entrypoint[0] {
			img.builtFrom = src
		}
		if slices.Contains(f, "--chown="+img.user) {
			img.owned[dst] = true
		}
	}
	if img.builtFrom == "" {
		t.Fatalf("final stage: no COPY --from=build to the ENTRYPOINT %s", img.entrypoint[0])
	}
	return img
}

// healthcheckOf is the command of the stage's HEALTHCHECK ... CMD [...].
func healthcheckOf(t *testing.T, stage []instruction) []string {
	t.Helper()
	hc := find(stage, "HEALTHCHECK")
	if len(hc) != 1 {
		t.Fatalf("final stage: %d HEALTHCHECK, want one", len(hc))
	}
	_, cmd, ok := strings.Cut(hc[0], " CMD ")
	if !ok {
		t.Fatalf("HEALTHCHECK %s: no CMD", hc[0])
	}
	return execForm(t, "HEALTHCHECK CMD", cmd)
}

// envWith is the image's environment with compose's on top.
func (img image) envWith(compose map[string]string) map[string]string {
	env := maps.Clone(img.env)
	maps.Copy(env, compose)
	return env
}

// mount is one of a compose service's volumes.
type mount struct {
	source, target string
	named          bool // a named volume, else a folder bind-mounted
}

// composeMounts are svc's volumes by target; a named one must be
// declared in the file's volumes.
func composeMounts(t *testing.T, c compose, svc composeService) map[string]mount {
	t.Helper()
	mounts := map[string]mount{}
	for _, v := range svc.Volumes {
		f := strings.Split(v, ":")
		if len(f) < 2 {
			t.Fatalf("volume %q: want source:target", v)
		}
		m := mount{source: f[0], target: f[1], named: !strings.HasPrefix(f[0], ".") && !strings.HasPrefix(f[0], "/")}
		if _, declared := c.Volumes[m.source]; m.named && !declared {
			t.Errorf("volume %q: %s is not declared in volumes", v, m.source)
		}
		mounts[m.target] = m
	}
	return mounts
}

// mapPaths replaces each container path of paths in args (alone, or as
// the value of a --flag=) by the host path that stands for it.
func mapPaths(args []string, paths map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = mapPath(a, paths)
	}
	return out
}

func mapPath(s string, paths map[string]string) string {
	prefix, value, ok := strings.Cut(s, "=")
	if !ok || !strings.HasPrefix(s, "-") {
		prefix, value = "", s
	} else {
		prefix += "="
	}
	for target, host := range paths {
		if value == target || strings.HasPrefix(value, target+"/") {
			return prefix + host + strings.TrimPrefix(value, target)
		}
	}
	return s
}

// mapEnv is env as KEY=value lines, container paths mapped.
func mapEnv(env map[string]string, paths map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+mapPath(v, paths))
	}
	return out
}
