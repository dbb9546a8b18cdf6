package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dynapi/dynapi/engine/pgserver"
)

// readyTimeout bounds how long a started server may take to answer /readyz.
const readyTimeout = time.Minute

// cluster is what a run measures: a database and the dynapi servers on it,
// each started by the tool unless the flags name them.
type cluster struct {
	databaseURL string    // "" when neither given nor started: no baseline
	servers     []*server // the first takes the load; the second watches too
	pg          *pgserver.Server
	replicas    []*pgserver.Server // streaming replicas of pg, read from by the servers
	tmp         string             // binary, logs and private database; removed by close
	bin         string             // the dynapi binary built; "" when the servers are given
	security    []string           // the servers' authentication and authorization flags
}

// server is one dynapi server; cmd is nil for a server the tool did not start.
type server struct {
	name    string // A, B
	url     string
	cmd     *exec.Cmd
	log     string
	exited  chan struct{} // closed when the process has exited
	waitErr error         // its exit status; read after exited is closed
}

// startCluster starts what cfg does not name: a private durable PostgreSQL
// and two dynapi processes built from this module.
func startCluster(ctx context.Context, cfg config, progress io.Writer) (*cluster, error) {
	c := &cluster{databaseURL: cfg.DatabaseURL}
	if len(cfg.Servers) > 0 {
		for i, u := range cfg.Servers {
			c.servers = append(c.servers, &server{name: serverName(i), url: u})
		}
		return c, nil
	}
	var err error
	if c.tmp, err = os.MkdirTemp("", "dynapi-bench-"); err != nil {
		return nil, err
	}
	if cfg.Token != "" {
		if c.security, err = securityFlags(c.tmp, cfg.Token); err != nil {
			return nil, errors.Join(err, c.close())
		}
	}
	if err := c.start(ctx, cfg.Replicas, progress); err != nil {
		return nil, errors.Join(err, c.close())
	}
	return c, nil
}

// start builds dynapi, starts the database unless given, and replicas of
// it, then two servers.
func (c *cluster) start(ctx context.Context, replicas int, progress io.Writer) error {
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	bin := filepath.Join(c.tmp, "dynapi")
	c.bin = bin
	fmt.Fprintln(progress, "building dynapi")
	if err := goCommand(ctx, root, "build", "-o", bin, "./cmd/dynapi"); err != nil {
		return err
	}
	if c.databaseURL == "" {
		fmt.Fprintln(progress, "starting a private PostgreSQL (durable: fsync on)")
		// Not Ephemeral: a persistent cluster, so commits are flushed to disk
		// as in a real deployment; close removes it with the temp directory.
		if c.pg, err = pgserver.Start(ctx, pgserver.Options{DataDir: filepath.Join(c.tmp, "pg")}); err != nil {
			return err
		}
		c.databaseURL = c.pg.URL()
	}
	readURLs, err := c.startReplicas(ctx, replicas, progress)
	if err != nil {
		return err
	}
	for i := range 2 {
		s, err := startServer(ctx, serverName(i), bin, filepath.Join(root, "schemas"), c.databaseURL, c.tmp,
			append(append([]string{"--conversions", filepath.Join(root, "conversions")}, readURLs...), c.security...)...)
		if s != nil {
			c.servers = append(c.servers, s)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// close stops what start started and removes the temporary files.
func (c *cluster) close() error {
	var errs []error
	for _, s := range c.servers {
		errs = append(errs, s.stop())
	}
	for i, r := range c.replicas {
		errs = append(errs, r.Stop(), pgserver.Remove(c.replicaDir(i)))
	}
	if c.pg != nil {
		errs = append(errs, c.pg.Stop())
	}
	if c.pg != nil {
		// Run as root, the cluster may live outside c.tmp.
		errs = append(errs, pgserver.Remove(filepath.Join(c.tmp, "pg")))
	}
	if c.tmp != "" {
		errs = append(errs, os.RemoveAll(c.tmp))
	}
	return errors.Join(errs...)
}

// serverName names the i-th server: A, B, ...
func serverName(i int) string { return string(rune('A' + i)) }

// moduleRoot is the directory of the module this tool belongs to.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/dynapi/dynapi").Output()
	if err != nil {
		return "", fmt.Errorf("find the dynapi module (run from inside it): %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// goCommand runs the go tool in dir.
func goCommand(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// startServer runs the dynapi binary on a free loopback port, serving the
// definitions in schemas, and waits until it is ready. Its output goes to a
// log file in dir; args are more flags.
func startServer(ctx context.Context, name, bin, schemas, databaseURL, dir string, args ...string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &server{name: name, url: "http://" + addr, log: filepath.Join(dir, "dynapi-"+name+".log")}
	logFile, err := os.Create(s.log)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	s.cmd = exec.Command(bin, append([]string{"--listen", addr, "--database-url", databaseURL, "--schemas", schemas}, args...)...)
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start dynapi %s: %w", name, err)
	}
	s.exited = make(chan struct{})
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	return s, s.waitReady(ctx)
}

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitReady polls /readyz until it answers 200.
func (s *server) waitReady(ctx context.Context) error {
	c, err := newServerClient(s.url, "", http.DefaultTransport)
	if err != nil {
		return err
	}
	deadline := time.After(readyTimeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := c.get(ctx, "/readyz"); err == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("dynapi %s exited (%v); its log:\n%s", s.name, s.waitErr, logTail(s.log))
		case <-deadline:
			return fmt.Errorf("dynapi %s not ready after %s; its log:\n%s", s.name, readyTimeout, logTail(s.log))
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// stopTimeout bounds a server's clean shutdown before it is killed.
const stopTimeout = 15 * time.Second

// stop asks a started server to shut down and waits for it.
func (s *server) stop() error {
	if s.cmd == nil {
		return nil
	}
	select {
	case <-s.exited:
		return fmt.Errorf("dynapi %s exited early (%v); its log:\n%s", s.name, s.waitErr, logTail(s.log))
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop dynapi %s: %w", s.name, err)
	}
	select {
	case <-s.exited:
		if s.waitErr != nil {
			return fmt.Errorf("dynapi %s: %w; its log:\n%s", s.name, s.waitErr, logTail(s.log))
		}
		return nil
	case <-time.After(stopTimeout):
		return errors.Join(fmt.Errorf("dynapi %s did not stop in %s; killed", s.name, stopTimeout), s.cmd.Process.Kill())
	}
}

// logTail returns the end of a log file.
func logTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(data[max(0, len(data)-2000):])
}

// describeDatabase says where the database came from, for the report.
func (c *cluster) describeDatabase() string {
	switch {
	case c.pg != nil && len(c.replicas) > 0:
		return fmt.Sprintf("private PostgreSQL, durable (fsync and synchronous_commit on), and %d streaming replica(s) the servers read from", len(c.replicas))
	case c.pg != nil:
		return "private PostgreSQL, durable (fsync and synchronous_commit on)"
	case c.databaseURL != "":
		return "-database-url"
	}
	return "unknown (-servers without -database-url: no baseline)"
}

// benchPolicy binds the tool's user to cluster-admin through RBAC, so
// that every request is authorized by a rule, not by system:masters.
const benchPolicy = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: dynapi-bench}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: dynapi-bench}]
`

// securityFlags writes a token file and an RBAC policy for token into dir
// and returns the server flags that use them.
func securityFlags(dir, token string) ([]string, error) {
	tokens, policy := filepath.Join(dir, "tokens.csv"), filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(tokens, []byte(token+",dynapi-bench,bench\n"), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(policy, []byte(benchPolicy), 0o600); err != nil {
		return nil, err
	}
	return []string{"--token-auth-file", tokens, "--authorization-mode", "RBAC", "--authorization-policy-file", policy}, nil
}

// startReplicas starts n streaming replicas of the private PostgreSQL and
// returns the servers' flags that read from them.
func (c *cluster) startReplicas(ctx context.Context, n int, progress io.Writer) ([]string, error) {
	var flags []string
	for i := range n {
		fmt.Fprintf(progress, "starting streaming replica %d of the private PostgreSQL\n", i+1)
		r, err := pgserver.Start(ctx, pgserver.Options{DataDir: c.replicaDir(i), Primary: c.pg})
		if err != nil {
			return nil, err
		}
		c.replicas = append(c.replicas, r)
		flags = append(flags, "--database-read-url", r.URL())
	}
	return flags, nil
}

// replicaDir is the data directory of the i-th replica.
func (c *cluster) replicaDir(i int) string {
	return filepath.Join(c.tmp, fmt.Sprintf("pg-replica-%d", i))
}

// urls are the servers' base URLs.
func (c *cluster) urls() []string {
	out := make([]string, len(c.servers))
	for i, s := range c.servers {
		out[i] = s.url
	}
	return out
}
