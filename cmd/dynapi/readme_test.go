package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReadme runs the README's tour and every recipe in it as written,
// with the real kubectl, curl and bash, so that the README cannot drift
// from what works.
//
// A fenced sh block preceded by `<!-- test: NAME -->` is a step of the
// script NAME; the steps of one script run in order, in one bash session,
// in a temporary folder that holds links to the repository's schemas/,
// conversions/ and cmd/. A block preceded by `<!-- test: NAME server -->`
// holds one `go run ./cmd/dynapi [flags]` line: the test starts that
// server there (this test binary re-executed as dynapi) on a port of its
// own, with DATABASE_URL naming a throw-away PostgreSQL, and waits until
// it is ready; later steps reach it where the README says it listens
// (the README's address is replaced by the real one). In other steps
// `go run ./cmd/dynapi` runs the same binary.
//
// A comment `# → TEXT` under a command says that the command succeeds and
// prints TEXT; `# ✗ TEXT` that it fails and prints TEXT. Every other
// command must succeed.
func TestReadme(t *testing.T) {
	for _, tool := range []string{"kubectl", "curl", "bash", "openssl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed for this test (install it; .ci/run does): %v", tool, err)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := parseReadme(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tour", "own-crds", "bootstrap"} {
		if !hasScript(scripts, want) {
			t.Errorf("README.md has no script %q", want)
		}
	}
	for _, s := range scripts {
		t.Run(s.name, func(t *testing.T) { runReadmeScript(t, s) })
	}
}

// readmeScript is the steps of one script, in README order.
type readmeScript struct {
	name  string
	steps []readmeStep
}

// readmeStep is one marked block.
type readmeStep struct {
	server bool   // a `go run ./cmd/dynapi` line the test starts itself
	line   int    // where the block starts in README.md
	text   string // the block's lines
}

// readmeMarker marks the block that follows it.
var readmeMarker = regexp.MustCompile(`^<!-- test: ([a-z0-9-]+)( server)? -->$`)

// parseReadme returns the README's scripts in order of first appearance.
// Errors: a marker not followed by a sh block, a server block that is not
// one `go run ./cmd/dynapi` line.
func parseReadme(readme string) ([]readmeScript, error) {
	lines := strings.Split(readme, "\n")
	var scripts []readmeScript
	for i := 0; i < len(lines); i++ {
		m := readmeMarker.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		step, end, err := readmeBlock(lines, i+1)
		if err != nil {
			return nil, fmt.Errorf("README.md:%d: %w", i+1, err)
		}
		step.server = m[2] != ""
		if step.server && !strings.HasPrefix(step.text, "go run ./cmd/dynapi") {
			return nil, fmt.Errorf("README.md:%d: a server block is one `go run ./cmd/dynapi` line", i+1)
		}
		scripts = addStep(scripts, m[1], step)
		i = end
	}
	return scripts, nil
}

// readmeBlock reads the ```sh block that starts at lines[from] (blank lines
// before it allowed) and returns it and the index of its closing fence.
func readmeBlock(lines []string, from int) (readmeStep, int, error) {
	for from < len(lines) && strings.TrimSpace(lines[from]) == "" {
		from++
	}
	if from == len(lines) || lines[from] != "```sh" {
		return readmeStep{}, 0, fmt.Errorf("a test marker must be followed by a ```sh block")
	}
	for end := from + 1; end < len(lines); end++ {
		if lines[end] == "```" {
			return readmeStep{line: from + 2, text: strings.Join(lines[from+1:end], "\n")}, end, nil
		}
	}
	return readmeStep{}, 0, fmt.Errorf("the ```sh block is not closed")
}

// addStep appends step to the script name, a new one if it has none yet.
func addStep(scripts []readmeScript, name string, step readmeStep) []readmeScript {
	for i := range scripts {
		if scripts[i].name == name {
			scripts[i].steps = append(scripts[i].steps, step)
			return scripts
		}
	}
	return append(scripts, readmeScript{name: name, steps: []readmeStep{step}})
}

func hasScript(scripts []readmeScript, name string) bool {
	for _, s := range scripts {
		if s.name == name {
			return true
		}
	}
	return false
}

// runReadmeScript runs the steps of s in a fresh folder, with a database of
// its own.
func runReadmeScript(t *testing.T, s readmeScript) {
	databaseURL, _ := startPostgres(t)
	dir := readmeFolder(t)
	session := startShell(t, dir)
	var addrs []string // README address, real address, pairs
	for _, step := range s.steps {
		if step.server {
			addrs = append(addrs, startReadmeServer(t, dir, databaseURL, step)...)
			continue
		}
		text := strings.NewReplacer(append(addrs, "go run ./cmd/dynapi", "dynapi")...).Replace(step.text)
		session.run(t, step.line, text)
	}
}

// readmeFolder is a temporary folder with links to what the README's
// commands name, and a bin/dynapi that runs this test binary as dynapi.
func readmeFolder(t *testing.T) string {
	dir := t.TempDir()
	for _, name := range []string{"schemas", "conversions", "cmd"} {
		abs, err := filepath.Abs(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	wrapper := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q \"$@\"\n", reexecEnv, testBinary(t))
	if err := os.WriteFile(filepath.Join(dir, "bin", "dynapi"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// testBinary is this test binary's absolute path: the README's commands
// run in another folder.
func testBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// startReadmeServer starts the server of step in dir, on a port of its own,
// and returns the replacements of the README's address by its own.
func startReadmeServer(t *testing.T, dir, databaseURL string, step readmeStep) []string {
	t.Helper()
	line, _, _ := strings.Cut(step.text, "#")
	args, listen := readmeListen(t, strings.Fields(strings.TrimPrefix(line, "go run ./cmd/dynapi")))
	cmd := exec.Command(testBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(readmeEnv(dir), reexecEnv+"=1", "DATABASE_URL="+databaseURL)
	p := spawn(t, "README.md:"+fmt.Sprint(step.line), cmd)
	served, err := url.Parse(p.url)
	if err != nil {
		t.Fatal(err)
	}
	p.url = served.Scheme + "://127.0.0.1:" + served.Port()
	p.waitReady(t)
	_, port, _ := net.SplitHostPort(listen)
	real := "127.0.0.1:" + served.Port()
	return []string{"127.0.0.1:" + port, real, "localhost:" + port, real}
}

// readmeListen returns serve's args listening on a port the system picks
// (anyPort), and the address the README gives (serve's default when it
// gives none).
func readmeListen(t *testing.T, args []string) ([]string, string) {
	t.Helper()
	for i := range args {
		if args[i] == "--listen" && i+1 < len(args) {
			listen := args[i+1]
			args[i+1] = anyPort(t, listen)
			return args, listen
		}
	}
	return append(args, "--listen", "127.0.0.1:0"), "127.0.0.1:8080"
}

// readmeEnv is the environment of the README's commands: the user's, with
// HOME in dir (kubectl's cache and configuration), bin/dynapi first on
// PATH, and none of the settings that would point them elsewhere.
func readmeEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "HOME", name == "PATH", name == "KUBECONFIG", name == "DATABASE_URL",
			name == reexecEnv, strings.HasPrefix(name, "DYNAPI_"):
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+filepath.Join(dir, "home"), "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"))
}

// readmeStepTimeout bounds one block's commands.
const readmeStepTimeout = 3 * time.Minute

// readmeShell runs the README's blocks one after another in one bash, so
// that what one block exports the next one sees.
type readmeShell struct {
	dir   string
	state string // a file holding the session's exported variables
}

func startShell(t *testing.T, dir string) *readmeShell {
	return &readmeShell{dir: dir, state: filepath.Join(t.TempDir(), "state")}
}

// run runs one block (at README line first) and checks its commands.
func (s *readmeShell) run(t *testing.T, first int, text string) {
	t.Helper()
	cmds := splitCommands(text, first)
	ctx, cancel := context.WithTimeout(context.Background(), readmeStepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", s.script(cmds))
	cmd.Dir = s.dir
	cmd.Env = append(readmeEnv(s.dir), "README_STATE="+s.state)
	cmd.WaitDelay = 10 * time.Second // a command left in the background must not hold the output open
	// Held open while bash runs: a dynapi it starts stops when its
	// standard input ends (stopWithParent).
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.CombinedOutput()
	checkCommands(t, cmds, string(out), err)
}

// script is bash that runs cmds, each between markers carrying its exit
// status, and stops at the first that does not end as the README says.
func (s *readmeShell) script(cmds []readmeCommand) string {
	var b strings.Builder
	// set -a: what a block sets, later blocks see, as in one terminal.
	b.WriteString("set -a\n[ -f \"$README_STATE\" ] && . \"$README_STATE\"\n")
	for i, c := range cmds {
		fmt.Fprintf(&b, "printf '\\n@@@begin %d\\n'\n%s\n__rc=$?\nprintf '\\n@@@end %d %%d\\n' $__rc\n", i, c.text, i)
		check := "[ $__rc -eq 0 ]"
		if c.fails {
			check = "[ $__rc -ne 0 ]"
		}
		fmt.Fprintf(&b, "%s || exit 97\n", check)
	}
	b.WriteString("export -p > \"$README_STATE\"\n")
	return b.String()
}

// readmeCommand is one command of a block and what the README says of it.
type readmeCommand struct {
	line  int      // in README.md
	text  string   // the command, continuation lines and here-documents included
	fails bool     // `# ✗`: it must fail
	want  []string // what it prints
}

// heredoc finds a here-document's delimiter in a command line.
var heredoc = regexp.MustCompile(`<<-?\s*'?"?([A-Za-z_]+)'?"?`)

// splitCommands cuts a block into commands: a line, with the lines it
// continues (a trailing backslash) and its here-document; `# →` and `# ✗`
// lines attach to the command above them, other comments are skipped.
func splitCommands(text string, first int) []readmeCommand {
	lines := strings.Split(text, "\n")
	var cmds []readmeCommand
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if want, fails, ok := expectation(l); ok && len(cmds) > 0 {
			c := &cmds[len(cmds)-1]
			c.want, c.fails = append(c.want, want), c.fails || fails
			continue
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c := readmeCommand{line: first + i}
		j := i
		for strings.HasSuffix(lines[j], "\\") && j+1 < len(lines) {
			j++
		}
		if m := heredoc.FindStringSubmatch(strings.Join(lines[i:j+1], "\n")); m != nil {
			for j+1 < len(lines) && strings.TrimSpace(lines[j]) != m[1] {
				j++
			}
		}
		c.text = strings.Join(lines[i:j+1], "\n")
		cmds = append(cmds, c)
		i = j
	}
	return cmds
}

// expectation reads a `# → TEXT` or `# ✗ TEXT` line.
func expectation(line string) (want string, fails, ok bool) {
	if rest, found := strings.CutPrefix(line, "# →"); found {
		return strings.TrimSpace(rest), false, true
	}
	if rest, found := strings.CutPrefix(line, "# ✗"); found {
		return strings.TrimSpace(rest), true, true
	}
	return "", false, false
}

// checkCommands fails the test at the first command that did not end as
// the README says, or that lacks what it should print.
func checkCommands(t *testing.T, cmds []readmeCommand, out string, runErr error) {
	t.Helper()
	for i, c := range cmds {
		begin := fmt.Sprintf("\n@@@begin %d\n", i)
		from := strings.Index(out, begin)
		if from < 0 {
			t.Fatalf("README.md:%d: not run (%v); output:\n%s", c.line, runErr, out)
		}
		printed, rest, _ := strings.Cut(out[from+len(begin):], fmt.Sprintf("\n@@@end %d ", i))
		status, _, _ := strings.Cut(rest, "\n")
		if rest == "" {
			t.Fatalf("README.md:%d: %s\ndid not finish (%v); it printed:\n%s", c.line, c.text, runErr, printed)
		}
		if (status == "0") == c.fails {
			t.Fatalf("README.md:%d: %s\nexited %s; it printed:\n%s", c.line, c.text, status, printed)
		}
		for _, w := range c.want {
			if !strings.Contains(printed, w) {
				t.Fatalf("README.md:%d: %s\nprinted no %q:\n%s", c.line, c.text, w, printed)
			}
		}
	}
	if runErr != nil {
		t.Fatalf("README.md: the block did not run through: %v\n%s", runErr, out)
	}
}

// TestSplitCommands: a block is cut into the commands bash will run, each
// with what the README says it prints.
func TestSplitCommands(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []readmeCommand
	}{
		{"one line a command, comments skipped", "# a comment\nkubectl get ns   # inline\n\nkubectl version",
			[]readmeCommand{{line: 11, text: "kubectl get ns   # inline"}, {line: 13, text: "kubectl version"}}},
		{"continuation lines", "curl -s \\\n  -XPOST x\necho done",
			[]readmeCommand{{line: 10, text: "curl -s \\\n  -XPOST x"}, {line: 12, text: "echo done"}}},
		{"a here-document", "cat > a.yaml <<'YAML'\nkind: A\n# not a comment\nYAML\n# → printed",
			[]readmeCommand{{line: 10, text: "cat > a.yaml <<'YAML'\nkind: A\n# not a comment\nYAML", want: []string{"printed"}}}},
		{"expected failure", "kubectl apply -f x\n# ✗ conflict\n# → more",
			[]readmeCommand{{line: 10, text: "kubectl apply -f x", fails: true, want: []string{"conflict", "more"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitCommands(tt.text, 10)
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
