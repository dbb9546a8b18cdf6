package main

import (
	"cmp"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// The container files, from this package's folder.
const (
	dockerfilePath   = "../../Dockerfile"
	composePath      = "../../docker-compose.yaml"
	dockerignorePath = "../../.dockerignore"
)

// TestDockerFiles: the image is distroless and runs as a non-root user
// who owns the data folder; its ENTRYPOINT, CMD and HEALTHCHECK run the
// binary it copies, without a shell; compose pairs it with a healthy
// PostgreSQL 15 and mounts schemas/, conversions/ and a named volume
// where the image's environment says; the build context leaves out
// .dynapi/, .git and test binaries.
func TestDockerFiles(t *testing.T) {
	d := readDockerfile(t, dockerfilePath)
	img := imageOf(t, d)
	if from := find(d.final(), "FROM"); !strings.HasPrefix(from[0], "gcr.io/distroless/static") {
		t.Errorf("final stage FROM %s, want distroless static (no libc: the binary is static)", from[0])
	}
	if img.user == "" || img.user == "0" || strings.HasPrefix(img.user, "root") {
		t.Errorf("USER %q: the image must run as a non-root user", img.user)
	}
	c := readCompose(t, composePath)
	pg, dyn := c.Services["postgres"], c.Services["dynapi"]
	if pg.Image != "postgres:15" || pg.Healthcheck == nil || len(pg.Healthcheck.Test) == 0 {
		t.Errorf("postgres service: image %q, healthcheck %+v; want postgres:15 with a healthcheck", pg.Image, pg.Healthcheck)
	}
	if dyn.Build != "." || dyn.DependsOn["postgres"].Condition != "service_healthy" {
		t.Errorf("dynapi service: build %q, depends_on %+v; want the Dockerfile, after a healthy postgres", dyn.Build, dyn.DependsOn)
	}
	if dyn.Healthcheck != nil {
		t.Errorf("dynapi service: a healthcheck of its own %v; the image's (%v) is the one tested", dyn.Healthcheck.Test, img.healthcheck)
	}
	mounts := composeMounts(t, c, dyn)
	env := img.envWith(dyn.Environment)
	for _, name := range []string{"DYNAPI_SCHEMAS", "DYNAPI_CONVERSIONS", "DYNAPI_DATA_DIR"} {
		if m, ok := mounts[env[name]]; !ok {
			t.Errorf("%s=%s is not mounted by compose (%v)", name, env[name], dyn.Volumes)
		} else if name == "DYNAPI_DATA_DIR" && (!m.named || !img.owned[env[name]]) {
			t.Errorf("%s=%s: want a named volume on a folder the image's user owns (COPY --chown=%s)", name, env[name], img.user)
		}
	}
	checkPorts(t, env["DYNAPI_LISTEN"], dyn.Ports)
	checkDockerignore(t)
}

// checkPorts: the image listens on every address, and compose publishes
// its port as the same port: the kubeconfig written inside names
// https://127.0.0.1:<port>, and the serving certificate 127.0.0.1.
func checkPorts(t *testing.T, listen string, ports []string) {
	t.Helper()
	host, port, err := net.SplitHostPort(listen)
	if err != nil || host != "0.0.0.0" {
		t.Errorf("DYNAPI_LISTEN=%q: want 0.0.0.0:<port> (%v)", listen, err)
	}
	if len(ports) != 1 || !strings.HasSuffix(ports[0], ":"+port+":"+port) {
		t.Errorf("ports %v: want 127.0.0.1:%s:%s", ports, port, port)
	}
}

func checkDockerignore(t *testing.T) {
	t.Helper()
	patterns := readDockerignore(t, dockerignorePath)
	for _, tt := range []struct {
		path    string
		ignored bool
	}{
		{".dynapi/pgdata/PG_VERSION", true},
		{".git/HEAD", true},
		{"cmd/dynapi/dynapi.test", true},
		{"engine/postgres/postgres.test", true},
		{"dynapi", true},
		{"cmd/dynapi/dynapi", true},
		{"go.mod", false},
		{"cmd/dynapi/main.go", false},
		{"schemas/shop.example.com/widget.yaml", false},
		{"conversions/plumbing.example.com/pipe.yaml", false},
		{"migrations/0001_objects.sql", false},
	} {
		if got := dockerignored(patterns, tt.path); got != tt.ignored {
			t.Errorf(".dockerignore: %s ignored %v, want %v", tt.path, got, tt.ignored)
		}
	}
}

// TestDockerImage runs what the image runs without Docker: the binary
// built by the Dockerfile's own build command, started with its
// ENTRYPOINT and CMD and the environment of the image and of compose,
// the mounts as folders (a copy of schemas/ and conversions/, an empty
// data folder owned by the image's user), a PostgreSQL of the test kit
// for the compose service. It bootstraps, the image's HEALTHCHECK fails
// until it is ready and then passes, and the real kubectl uses the
// kubeconfig it wrote into the data volume.
func TestDockerImage(t *testing.T) {
	needKubectl(t)
	d := readDockerfile(t, dockerfilePath)
	img := imageOf(t, d)
	c := readCompose(t, composePath)
	dyn := c.Services["dynapi"]
	root := sharedTempDir(t)
	bin := buildImageBinary(t, d, img, root)
	databaseURL, _ := startPostgres(t)
	uid, gid := imageUser(t, img.user)
	paths := map[string]string{img.entrypoint[0]: bin}
	for target, m := range composeMounts(t, c, dyn) {
		paths[target] = hostMount(t, root, m, uid, gid)
	}
	env := img.envWith(dyn.Environment)
	if !strings.Contains(env["DATABASE_URL"], "@postgres:5432/") {
		t.Errorf("DATABASE_URL=%s: want the compose service postgres", env["DATABASE_URL"])
	}
	env["DATABASE_URL"] = overTCP(t, databaseURL)
	// Any free port: other tests share this machine. The kubeconfig says
	// which one it got.
	env["DYNAPI_LISTEN"] = anyPort(t, env["DYNAPI_LISTEN"])
	argv := mapPaths(append(img.entrypoint, orDefault(dyn.Command, img.cmd)...), paths)
	probe := mapPaths(img.healthcheck, paths)
	environ := mapEnv(env, paths)

	if out, err := runAs(probe, environ, uid, gid).CombinedOutput(); err == nil {
		t.Fatalf("healthcheck passed before the server started: %s", out)
	}
	p := startImage(t, argv, environ, uid, gid)
	wait.Eventually(t, processStartTimeout, func() (bool, string) {
		out, err := runAs(probe, environ, uid, gid).CombinedOutput()
		return err == nil && strings.Contains(string(out), "readyz check passed"), "healthcheck: " + string(out) + "\nserver log:\n" + p.tail()
	})
	kubeconfig := filepath.Join(paths[env["DYNAPI_DATA_DIR"]], "kubeconfig")
	adminWhoami(t, kubeconfig)
	if out := runKubectl(t, kubeconfig, "get", "namespaces", "-o", "name"); !strings.Contains(out, "namespace/default") {
		t.Errorf("kubectl get namespaces: %s", out)
	}
	if out := runKubectl(t, kubeconfig, "get", "widgets.shop.example.com", "-A"); !strings.Contains(out, "No resources found") {
		t.Errorf("kubectl get widgets (the mounted schemas/): %s", out)
	}
}

// sharedTempDir is a temporary folder that the image's user can reach:
// t.TempDir's folders are 0700.
func sharedTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// buildImageBinary runs the build stage's `go build` command as Docker
// would (sh -c), from the repository's root, writing the binary that the
// final stage copies to the ENTRYPOINT into dir instead.
func buildImageBinary(t *testing.T, d dockerfile, img image, dir string) string {
	t.Helper()
	var build string
	for _, run := range find(d.stages[0], "RUN") {
		if strings.Contains(run, "go build") {
			build = run
		}
	}
	out := "-o " + img.builtFrom
	if !strings.Contains(build, out) {
		t.Fatalf("the build stage's go build (%q) does not write %s, which the image copies to %s", build, img.builtFrom, img.entrypoint[0])
	}
	bin := filepath.Join(dir, "dynapi")
	cmd := exec.Command("sh", "-c", strings.Replace(build, out, "-o "+bin, 1))
	cmd.Dir = "../.."
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", build, err, msg)
	}
	return bin
}

// hostMount is the folder that stands for mount m under root: a copy of
// a bind-mounted folder, or an empty folder for a named volume, owned by
// uid:gid as the image's copy of it is.
func hostMount(t *testing.T, root string, m mount, uid, gid int) string {
	t.Helper()
	dst := filepath.Join(root, strings.ReplaceAll(strings.Trim(m.target, "/"), "/", "_"))
	if !m.named {
		if err := os.CopyFS(dst, os.DirFS(filepath.Join("../..", m.source))); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(dst, uid, gid); err != nil && os.Geteuid() == 0 {
		t.Fatal(err)
	}
	return dst
}

// startImage starts argv with environ as uid:gid, and stops it with
// SIGTERM (as docker stop does) at the end of the test.
func startImage(t *testing.T, argv, environ []string, uid, gid int) *processLog {
	t.Helper()
	log := &processLog{serving: make(chan struct{})}
	cmd := runAs(argv, environ, uid, gid)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("%v: %v; its log:\n%s", argv, err, log.tail())
			}
		case <-time.After(processStopTimeout):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("%v did not stop within %s; killed", argv, processStopTimeout)
		}
	})
	return log
}

// runAs is argv with environ alone (as in the container), as uid:gid
// when this test runs as root.
func runAs(argv, environ []string, uid, gid int) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = environ
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	return cmd
}

// imageUser reads USER uid:gid, numeric as a distroless image needs (it
// has no /etc/passwd entry the test machine would share).
func imageUser(t *testing.T, user string) (int, int) {
	t.Helper()
	u, g, _ := strings.Cut(user, ":")
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if err1 != nil || err2 != nil {
		t.Fatalf("USER %q: want numeric uid:gid", user)
	}
	return uid, gid
}

// anyPort is listen with port 0.
func anyPort(t *testing.T, listen string) string {
	t.Helper()
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		t.Fatalf("DYNAPI_LISTEN=%q: %v", listen, err)
	}
	return net.JoinHostPort(host, "0")
}

func orDefault(cmd, def []string) []string {
	if len(cmd) > 0 {
		return cmd
	}
	return def
}

// overTCP returns a URL of the database at databaseURL reached over TCP
// on loopback, as the compose service is reached, through a proxy to its
// Unix socket when it has one: the socket's folder is the postgres
// user's alone, and the image's user is not root.
func overTCP(t *testing.T, databaseURL string) string {
	t.Helper()
	u, err := url.Parse(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	sockDir := q.Get("host")
	if !strings.HasPrefix(sockDir, "/") {
		return databaseURL
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go proxyTo(ln, filepath.Join(sockDir, ".s.PGSQL."+cmp.Or(q.Get("port"), "5432")))
	q.Del("host")
	u.Host, u.RawQuery = ln.Addr().String(), q.Encode()
	return u.String()
}

// proxyTo copies each connection accepted on ln to and from a new
// connection to the Unix socket sock, until ln is closed.
func proxyTo(ln net.Listener, sock string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			s, err := net.Dial("unix", sock)
			if err != nil {
				return
			}
			defer s.Close()
			go func() { _, _ = io.Copy(s, c) }()
			_, _ = io.Copy(c, s)
		}()
	}
}
