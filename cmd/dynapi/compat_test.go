package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/registry"
)

// The compatibility suite: the CustomResourceDefinitions that well-known
// projects publish, fetched through the Go module proxy at test time (not
// copied here), loaded unmodified by check and by the server, each
// project's own example objects created through the real kubectl, and
// invalid objects refused with the definition's own message. A definition
// dynapi cannot load fails the test with the reason.
//
// Why these versions: the newest each project serves through the proxy
// that builds with the go directive of this module.
var compatProjects = []compatProject{
	{
		name: "gateway-api", module: "sigs.k8s.io/gateway-api@v1.6.0",
		// Every definition of the experimental channel; the channel's
		// ValidatingAdmissionPolicy file (_vap_safeupgrades) is no definition.
		crds: []string{"config/crd/experimental/gateway.networking.k8s.io_[a-u]*.yaml", "config/crd/experimental/gateway.networking.x-k8s.io_*.yaml"},
		examples: []string{"examples/standard/basic-http.yaml", "examples/standard/simple-gateway/gateway.yaml",
			"examples/standard/simple-gateway/httproute.yaml", "examples/standard/http-filter.yaml",
			"examples/standard/basic-grpc.yaml"},
		invalid: []compatInvalid{
			{"cross-field rule", `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bad-backend}
spec:
  rules:
  - backendRefs: [{name: svc}]`, "Must have port for Service reference"},
			{"list-map duplicate", `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: twin-listeners}
spec:
  gatewayClassName: example
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: http, protocol: HTTP, port: 8080}`, `spec.listeners[1]: Duplicate value: {"name":"http"}`},
			{"format", `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bad-hostname}
spec:
  hostnames: ["Not A Host"]`, "spec.hostnames[0] in body should match"},
			{"enum", `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bad-path-type}
spec:
  rules:
  - matches: [{path: {type: Bogus, value: /}}]`, `Unsupported value: "Bogus"`},
		},
		immutable: &compatImmutable{
			create: "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: fixed}\nspec: {controllerName: example.com/one}\n",
			update: "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: fixed}\nspec: {controllerName: example.com/two}\n",
			want:   "Value is immutable",
		},
	},
	{
		name: "cert-manager", module: "github.com/cert-manager/cert-manager@v1.21.2",
		crds:     []string{"deploy/crds/*.yaml"},
		examples: []string{"test/fixtures/cert-manager-resources.yaml"},
		invalid: []compatInvalid{
			{"cross-field rule", `apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: venafi}
spec:
  venafi: {zone: z}`, "exactly one of tpp, cloud, or ngts must be configured"},
			{"enum", `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: dsa}
spec:
  secretName: s
  issuerRef: {name: i}
  privateKey: {algorithm: DSA}`, `Unsupported value: "DSA"`},
		},
	},
	{
		name: "prometheus-operator", module: "github.com/prometheus-operator/prometheus-operator@v0.85.0",
		crds: []string{"example/prometheus-operator-crd/*.yaml"},
		examples: []string{"example/user-guides/getting-started/prometheus.yaml",
			"example/user-guides/getting-started/example-app-service-monitor.yaml",
			"example/user-guides/getting-started/example-app-pod-monitor.yaml"},
		invalid: []compatInvalid{
			{"cross-field rule", `apiVersion: monitoring.coreos.com/v1alpha1
kind: PrometheusAgent
metadata: {name: agent}
spec:
  mode: DaemonSet
  replicas: 2`, "replicas cannot be set when mode is DaemonSet"},
		},
	},
	{
		name: "keda", module: "github.com/kedacore/keda/v2@v2.21.0",
		crds:     []string{"config/crd/bases/*.yaml"},
		examples: []string{"config/samples/keda_v1alpha1_scaledobject.yaml", "config/samples/keda_v1alpha1_triggerauthentication.yaml"},
		invalid: []compatInvalid{
			{"cross-field rule", `apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: inverted}
spec:
  scaleTargetRef: {name: app}
  minReplicaCount: 5
  maxReplicaCount: 2
  triggers: [{type: cpu, metadata: {value: "50"}}]`, "minReplicaCount must be less than or equal to maxReplicaCount"},
		},
	},
	{
		name: "argo-cd", module: "github.com/argoproj/argo-cd/v3@v3.5.0",
		crds:       []string{"manifests/crds/*-crd.yaml"},
		namespaces: []string{"argocd"},
		examples:   []string{"docs/operator-manual/project.yaml", "docs/operator-manual/application.yaml"},
		invalid: []compatInvalid{
			{"required", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: nowhere}
spec: {project: default}`, "spec.destination: Required value"},
		},
	},
	{
		name: "knative-serving", module: "knative.dev/serving@v0.51.0",
		crds:     []string{"config/core/300-resources/*.yaml"},
		examples: []string{"test/test_images/helloworld/service.yaml"},
		invalid: []compatInvalid{
			{"type", `apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: typo}
spec: {template: {spec: {containerConcurrency: many}}}`, "spec.template.spec.containerConcurrency in body must be of type integer"},
		},
	},
	{
		name: "cluster-api", module: "sigs.k8s.io/cluster-api@v1.14.2",
		crds: []string{"core/config/crd/bases/*.yaml", "bootstrap/kubeadm/config/crd/bases/*.yaml",
			"controlplane/kubeadm/config/crd/bases/*.yaml"},
	},
}

type compatProject struct {
	name, module string
	crds         []string // globs in the module
	namespaces   []string // created before the examples
	examples     []string // files in the module, applied in order
	invalid      []compatInvalid
	immutable    *compatImmutable
}

// compatInvalid is an object the project's definitions refuse.
type compatInvalid struct{ what, yaml, want string }

// compatImmutable is an update a transition rule refuses.
type compatImmutable struct{ create, update, want string }

func TestCompatibility(t *testing.T) {
	needKubectl(t)
	schemas := t.TempDir()
	dirs := make(map[string]string)
	for _, p := range compatProjects {
		dirs[p.name] = moduleDir(t, p.module)
		copyCRDs(t, dirs[p.name], p, filepath.Join(schemas, p.name))
	}
	var out strings.Builder
	if err := check(Config{Schemas: schemas, Conversions: t.TempDir()}, &out, io.Discard); err != nil {
		t.Fatalf("check refuses published definitions: %v\n%s", err, out.String())
	}
	url, _ := startPostgres(t)
	m := startMain(t, Config{DatabaseURL: url, Schemas: schemas, Conversions: t.TempDir()})
	k := kubectl{t: t, server: "http://" + m.Addr(), home: t.TempDir()}
	for _, p := range compatProjects {
		t.Run(p.name, func(t *testing.T) {
			k.t = t
			for _, ns := range p.namespaces {
				k.run("create", "namespace", ns)
			}
			for _, e := range p.examples {
				k.run("apply", "-f", filepath.Join(dirs[p.name], e))
			}
			for _, bad := range p.invalid {
				refused(t, k, bad.what, bad.yaml, bad.want)
			}
			if im := p.immutable; im != nil {
				k.create(im.create)
				refused(t, k, "immutable field", im.update, im.want)
			}
		})
	}
}

// refused creates (or updates) obj and expects kubectl to fail with want.
func refused(t *testing.T, k kubectl, what, obj, want string) {
	t.Helper()
	out, err := k.stdin(obj, "apply", "-n", "default", "-f", "-")
	if err == nil || !strings.Contains(out, want) {
		t.Errorf("%s: kubectl apply = %v\n%s\nwant a refusal containing %q", what, err, out, want)
	}
}

// moduleDir downloads module (path@version) through the Go module proxy
// and returns its folder in the module cache.
func moduleDir(t testing.TB, module string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = t.TempDir() // outside this module: its go.mod does not constrain the download
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jsonErr := json.Unmarshal(out, &info); jsonErr != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %v %s %s", module, err, info.Error, out)
	}
	return info.Dir
}

// copyCRDs copies p's definition files, unmodified, into dst.
func copyCRDs(t testing.TB, dir string, p compatProject, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, glob := range p.crds {
		files, err := filepath.Glob(filepath.Join(dir, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			copyFile(t, f, filepath.Join(dst, filepath.Base(f)))
			n++
		}
	}
	if n == 0 {
		t.Fatalf("%s: no definition files match %v in %s", p.name, p.crds, dir)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}

// stdin runs kubectl with obj as its standard input.
func (k kubectl) stdin(obj string, args ...string) (string, error) {
	args = append([]string{"--server=" + k.server, "--cache-dir=" + k.home + "/cache"}, args...)
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.home+"/none", "HOME="+k.home)
	cmd.Stdin = strings.NewReader(obj)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// create creates obj in the default namespace, or fails the test.
func (k kubectl) create(obj string) {
	k.t.Helper()
	if out, err := k.stdin(obj, "apply", "-n", "default", "-f", "-"); err != nil {
		k.t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
}

// BenchmarkLoadCompatibility measures loading every definition of the
// compatibility suite (registry.Load: parse, compile schemas and CEL
// rules), and check over them (the load and the conversion proof).
func BenchmarkLoadCompatibility(b *testing.B) {
	schemas := b.TempDir()
	for _, p := range compatProjects {
		copyCRDs(b, moduleDir(b, p.module), p, filepath.Join(schemas, p.name))
	}
	empty := b.TempDir()
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, problems := registry.Load(os.DirFS(schemas), os.DirFS(empty)); len(problems) > 0 {
				b.Fatal(problems)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if err := check(Config{Schemas: schemas, Conversions: empty}, io.Discard, io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
}
