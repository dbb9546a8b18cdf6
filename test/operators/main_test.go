package operators

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// adminToken is the static token of the test's cluster admin.
const adminToken = "operators-admin-token"

// api is the dynapi the tests share.
var api *server

// server is a running dynapi serving HTTPS on 127.0.0.1 with RBAC.
type server struct {
	url   string // https://127.0.0.1:PORT
	port  string
	dir   string // its temporary directory: certificates, kubeconfigs
	ca    *authority
	admin string // kubeconfig of the cluster admin
}

func TestMain(m *testing.M) {
	s, stop, err := startDynapi()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start dynapi:", err)
		os.Exit(1)
	}
	api = s
	code := m.Run()
	stop()
	os.Exit(code)
}

// webhookServices is dynapi's --webhook-service-map: where the operators'
// webhook Services are reached, as a cluster's DNS would reach their pods.
var webhookServices = map[string]string{
	"gatekeeper-system/gatekeeper-webhook-service": gatekeeperWebhook,
}

// gatekeeperWebhook is where Gatekeeper's webhook serves: a free port
// chosen before dynapi starts, since dynapi reads its map at start.
var gatekeeperWebhook = mustFreeAddress()

// startDynapi builds dynapi from the repository and starts it with a
// private PostgreSQL, TLS from a test CA, a static admin token, RBAC and the
// operators' webhook services mapped to 127.0.0.1.
func startDynapi() (s *server, stop func(), err error) {
	dir, err := os.MkdirTemp("", "dynapi-operators-")
	if err != nil {
		return nil, nil, err
	}
	// PostgreSQL, started as the postgres user when root, must reach it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, nil, err
	}
	s = &server{dir: dir}
	if s.ca, err = newAuthority(); err != nil {
		return nil, nil, err
	}
	if err := s.ca.writeServing(dir, "apiserver", "127.0.0.1", "localhost"); err != nil {
		return nil, nil, err
	}
	if err := writeConfigFiles(dir); err != nil {
		return nil, nil, err
	}
	root, _ := filepath.Abs("../..")
	bin := filepath.Join(dir, "dynapi")
	build := exec.Command("go", "build", "-o", bin, "./cmd/dynapi")
	build.Dir, build.Stderr = root, os.Stderr
	if err := build.Run(); err != nil {
		return nil, nil, fmt.Errorf("build: %w", err)
	}
	cmd := exec.Command(bin, "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"),
		"--tls-cert-file", filepath.Join(dir, "apiserver.crt"), "--tls-private-key-file", filepath.Join(dir, "apiserver.key"),
		"--token-auth-file", filepath.Join(dir, "tokens.csv"), "--authorization-mode", "RBAC",
		"--webhook-service-map", filepath.Join(dir, "services.yaml"))
	if v := os.Getenv("DYNAPI_LOG"); v != "" && strings.Trim(v, "0123456789") == "" {
		cmd.Args = append(cmd.Args, "-v="+v) // DYNAPI_LOG=3: with the access log
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		_ = os.RemoveAll(dir)
	}
	select {
	case s.url = <-listeningURL(stderr):
	case <-time.After(60 * time.Second):
		stop()
		return nil, nil, fmt.Errorf("dynapi did not say where it serves within 60s")
	}
	s.port = regexp.MustCompile(`[0-9]+$`).FindString(s.url)
	s.admin = filepath.Join(dir, "admin.kubeconfig")
	return s, stop, writeKubeconfig(s.admin, s.url, s.ca.certFile, adminToken, "default")
}

// listeningURL scans dynapi's log for the URL it serves on, copying the log
// to stderr when DYNAPI_LOG is set.
func listeningURL(log interface{ Read([]byte) (int, error) }) <-chan string {
	found := make(chan string, 1)
	go func() {
		listening := regexp.MustCompile(`url=(https://[0-9.:]+)`)
		sc := bufio.NewScanner(log)
		for sc.Scan() {
			if os.Getenv("DYNAPI_LOG") != "" {
				fmt.Fprintln(os.Stderr, sc.Text())
			}
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	return found
}

// writeConfigFiles writes dynapi's static token file and webhook service map.
func writeConfigFiles(dir string) error {
	tokens := adminToken + `,admin,admin-uid,"system:masters"` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(tokens), 0o600); err != nil {
		return err
	}
	var services string
	for name, addr := range webhookServices {
		services += name + ": " + addr + "\n"
	}
	return os.WriteFile(filepath.Join(dir, "services.yaml"), []byte(services), 0o600)
}

// writeKubeconfig writes a kubeconfig for a bearer token.
func writeKubeconfig(path, url, caFile, token, namespace string) error {
	return os.WriteFile(path, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: dynapi, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: user, user: {token: %q}}]
contexts: [{name: user, context: {cluster: dynapi, user: user, namespace: %q}}]
current-context: user
`, url, caFile, token, namespace)), 0o600)
}

// eventually polls f until it holds, failing the test after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, f func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for !f() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within %s", what, timeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
