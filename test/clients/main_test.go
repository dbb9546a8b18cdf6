package clients

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// server is the URL of the dynapi the tests share.
var server string

func TestMain(m *testing.M) {
	url, stop, err := startDynapi()
	server = url
	if err != nil {
		fmt.Fprintln(os.Stderr, "start dynapi:", err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}

// startDynapi builds dynapi from the repository and starts it on a free
// port with a private PostgreSQL in a temporary directory, with flags
// beside those, and returns its URL.
func startDynapi(flags ...string) (url string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "dynapi-clients-")
	if err != nil {
		return "", nil, err
	}
	// PostgreSQL, started as the postgres user when root, must reach it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", nil, err
	}
	root, _ := filepath.Abs("../..")
	bin := filepath.Join(dir, "dynapi")
	build := exec.Command("go", "build", "-o", bin, "./cmd/dynapi")
	build.Dir, build.Stderr = root, os.Stderr
	if err := build.Run(); err != nil {
		return "", nil, fmt.Errorf("build: %w", err)
	}
	cmd := exec.Command(bin, append([]string{"--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"),
		"--schemas", filepath.Join(root, "schemas"), "--conversions", filepath.Join(root, "conversions")}, flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		_ = os.RemoveAll(dir)
	}
	found := make(chan string, 1)
	go func() {
		listening := regexp.MustCompile(`url=(http://[0-9.:]+)`)
		sc := bufio.NewScanner(stderr)
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
	select {
	case url = <-found:
		return url, stop, nil
	case <-time.After(60 * time.Second):
		stop()
		return "", nil, fmt.Errorf("dynapi did not say where it serves within 60s")
	}
}

// config is a client configuration for the shared dynapi.
func config() *rest.Config {
	return &rest.Config{Host: server, QPS: 200, Burst: 400}
}

// eventually polls f until it holds, failing the test after 30 s.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for !f() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within 30s", what)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
