package operators

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// kubectl runs the real kubectl as the cluster admin, with stdin, and
// returns its standard output, failing the test when it fails.
func kubectl(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := kubectlAs(api.admin, stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// kubectlAs runs kubectl with a kubeconfig; its error carries kubectl's
// standard error, which holds the server's message.
func kubectlAs(kubeconfig, stdin string, args ...string) (string, error) {
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &kubectlError{err: err, stderr: stderr.String()}
	}
	return stdout.String(), nil
}

// kubectlError is a failed kubectl command with what it printed.
type kubectlError struct {
	err    error
	stderr string
}

func (e *kubectlError) Error() string { return e.err.Error() + ": " + e.stderr }

// serviceAccountToken is a token for the ServiceAccount from TokenRequest
// (kubectl create token), as docs/clients.md's recipe gets one.
func serviceAccountToken(t *testing.T, namespace, name string) string {
	t.Helper()
	return strings.TrimSpace(kubectl(t, "", "create", "token", name, "-n", namespace, "--duration=24h"))
}

// apply applies a published manifest through the API, without the
// documents of kinds dynapi does not serve (workloads, Services, policy
// objects: the test runs the operator as a process instead).
func apply(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	kubectl(t, servedDocuments(string(b)), "apply", "--server-side", "--force-conflicts", "-f", "-")
}

// notServed are the kinds of published manifests dynapi does not serve.
var notServed = regexp.MustCompile(`(?m)^kind: (Deployment|DaemonSet|StatefulSet|Service|Pod|PodDisruptionBudget|ResourceQuota|NetworkPolicy)\s*$`)

// servedDocuments is a multi-document YAML without the documents whose
// kind is in notServed.
func servedDocuments(manifest string) string {
	var kept []string
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(manifest, -1) {
		if strings.TrimSpace(doc) != "" && !notServed.MatchString(doc) {
			kept = append(kept, doc)
		}
	}
	return strings.Join(kept, "\n---\n")
}

// moduleDir is the directory of a module required by build/<operator>:
// its published files (CRDs, manifests) as the proxy served them.
func moduleDir(t *testing.T, operator, module string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-mod=readonly", "-m", "-f", "{{with .Replace}}{{.Dir}}{{else}}{{.Dir}}{{end}}", module)
	cmd.Dir = filepath.Join("build", operator)
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go list -m %s: %v", module, err)
	}
	return strings.TrimSpace(string(out))
}

// freeAddress is a loopback address with a port nothing listens on now.
func freeAddress(t *testing.T) string {
	t.Helper()
	addr, err := loopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// mustFreeAddress is freeAddress for package variables.
func mustFreeAddress() string {
	addr, err := loopbackPort()
	if err != nil {
		panic(err)
	}
	return addr
}

// loopbackPort is 127.0.0.1 with a port the system just gave and took back.
func loopbackPort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// run starts a program (name names it in logs) for the test's duration, its output in a log
// file that is printed when the test fails (or always with -v).
func run(t *testing.T, name string, cmd *exec.Cmd) {
	t.Helper()
	log, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		if t.Failed() || testing.Verbose() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("%s's log:\n%s", name, tail(string(b), 60))
		}
	})
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
