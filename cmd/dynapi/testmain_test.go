package main

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// reexecEnv, set to 1 in the environment of this test binary, makes it run
// dynapi's main with the arguments that follow the binary's name instead of
// the tests: tests start real dynapi processes without building one.
const reexecEnv = "DYNAPI_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(reexecEnv) == "1" {
		go stopWithParent()
		main() // exits by itself on failure
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// stopWithParent interrupts this process when its standard input ends:
// the test that started it has exited, even if it was killed (a test
// binary's timeout), so no dynapi process outlives its test.
func stopWithParent() {
	_, _ = io.Copy(io.Discard, os.Stdin)
	self, err := os.FindProcess(os.Getpid())
	if err == nil {
		err = self.Signal(os.Interrupt)
	}
	if err != nil {
		os.Exit(1)
	}
}

// Bounds on a child process's life.
const (
	processStartTimeout = time.Minute
	processStopTimeout  = 15 * time.Second
)

// process is `dynapi serve` running in a child process.
type process struct {
	name    string
	url     string // http://127.0.0.1:port
	cmd     *exec.Cmd
	log     *processLog
	stdin   io.WriteCloser // held open: the process stops when it closes
	exited  chan struct{}  // closed when the process has exited
	waitErr error          // its exit status; read after exited is closed
	ended   bool           // the test ended it (end): cleanup leaves it
}

// startProcess runs `dynapi serve` on databaseURL in a child process (this
// test binary re-executed), on a port it picks itself, and waits until it
// answers /readyz. Cleanup stops it with SIGTERM: it must exit cleanly,
// which under -race also means no data race was found in it. flags are
// more flags of serve.
func startProcess(t *testing.T, name, databaseURL string, flags ...string) *process {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--listen", "127.0.0.1:0", "--database-url", databaseURL,
		"--schemas", "../../schemas", "--conversions", "../../conversions", "--data-dir", t.TempDir()}, flags...)...) // its kubeconfig out of the tree
	cmd.Env = append(os.Environ(), reexecEnv+"=1")
	p := spawn(t, name, cmd)
	p.waitReady(t)
	return p
}

// spawn starts cmd, this test binary re-executed as dynapi (reexecEnv set
// in its environment), and waits until it logs the address it serves on.
// Cleanup stops it as startProcess's does.
func spawn(t *testing.T, name string, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{name: name, cmd: cmd, log: &processLog{serving: make(chan struct{})}, exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start dynapi %s: %v", name, err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.stop(t) })
	select {
	case <-p.log.serving:
		p.url = p.log.url
	case <-p.exited:
		t.Fatalf("dynapi %s exited before serving (%v); its log:\n%s", name, p.waitErr, p.log.tail())
	case <-time.After(processStartTimeout):
		t.Fatalf("dynapi %s not serving after %s; its log:\n%s", name, processStartTimeout, p.log.tail())
	}
	return p
}

// readyClient asks for /readyz over HTTP or TLS without verifying the
// server's certificate, as kubelet's HTTPS probes do: a bootstrapped
// server's CA is its own.
var readyClient = &http.Client{Timeout: 10 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

// waitReady polls /readyz until it answers 200.
func (p *process) waitReady(t *testing.T) {
	t.Helper()
	wait.Eventually(t, processStartTimeout, func() (bool, string) {
		resp, err := readyClient.Get(p.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true, ""
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		select {
		case <-p.exited:
			t.Fatalf("dynapi %s exited (%v); its log:\n%s", p.name, p.waitErr, p.log.tail())
		default:
		}
		return false, fmt.Sprintf("dynapi %s ready (last: %v); its log:\n%s", p.name, err, p.log.tail())
	})
}

// stop sends SIGTERM and waits for a clean exit; it kills the process if
// it does not stop in time.
func (p *process) stop(t *testing.T) {
	t.Helper()
	if p.ended {
		return
	}
	select {
	case <-p.exited:
		t.Errorf("dynapi %s exited early (%v); its log:\n%s", p.name, p.waitErr, p.log.tail())
		return
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("stop dynapi %s: %v", p.name, err)
	}
	select {
	case <-p.exited:
		if p.waitErr != nil {
			t.Errorf("dynapi %s: %v; its log:\n%s", p.name, p.waitErr, p.log.tail())
		}
		if !t.Failed() { // else requests the test cancelled are logged too
			p.log.check(t, p.name)
		}
	case <-time.After(processStopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("dynapi %s did not stop within %s; killed; its log:\n%s", p.name, processStopTimeout, p.log.tail())
	}
}

// end sends sig (SIGTERM, SIGKILL) to the process and returns its exit
// status once it has exited.
func (p *process) end(t *testing.T, sig os.Signal) error {
	t.Helper()
	p.signal(t, sig)
	return p.waitExit(t)
}

// signal sends sig to the process, which the test then ends itself:
// cleanup leaves it.
func (p *process) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	p.ended = true
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal dynapi %s: %v", p.name, err)
	}
}

// waitExit returns the exit status of the process once it has exited; the
// test fails if that takes longer than processStopTimeout.
func (p *process) waitExit(t *testing.T) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.waitErr
	case <-time.After(processStopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.exited
		t.Fatalf("dynapi %s did not exit within %s; killed; its log:\n%s", p.name, processStopTimeout, p.log.tail())
		return nil
	}
}

// servingLine is what serve logs once it listens.
var servingLine = regexp.MustCompile(`msg=serving url=(\S+)`)

// processLog keeps a child's output and finds the address it serves on.
type processLog struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	url     string
	serving chan struct{} // closed once url is known
}

func (l *processLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(b)
	if l.url == "" {
		if m := servingLine.FindSubmatch(l.buf.Bytes()); m != nil {
			l.url = string(m[1])
			close(l.serving)
		}
	}
	return len(b), nil
}

// check fails the test for each error the process logged, and shows its
// warnings.
func (l *processLog) check(t *testing.T, name string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for line := range strings.Lines(l.buf.String()) {
		switch {
		case strings.Contains(line, " level=ERROR "):
			t.Errorf("dynapi %s logged: %s", name, line)
		case strings.Contains(line, " level=WARN "):
			t.Logf("dynapi %s logged: %s", name, line)
		}
	}
}

// String returns the whole output.
func (l *processLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// tail returns the end of the output.
func (l *processLog) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buf.Bytes()
	return string(b[max(0, len(b)-4000):])
}
