package resource

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/dynapi/dynapi/engine/admission"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynapi/dynapi/engine/registry"
)

// gatewayAPI is the Gateway API release whose HTTPRoute the benchmarks
// create: a definition with 62 x-kubernetes-validations lists.
const gatewayAPI = "sigs.k8s.io/gateway-api@v1.6.0"

// BenchmarkCreateRules measures a create through the whole pipeline (over
// an in-memory store) of a Gateway API HTTPRoute of 1, 4 and 16 rules, whose
// definition has CEL rules and list-maps, and of a ~1.2 KB Widget, whose
// definition has none. The HTTPRoute's definition is fetched through the
// Go module proxy.
func BenchmarkCreateRules(b *testing.B) {
	b.Run("widget", func(b *testing.B) {
		r, v := shippedWidget(b)
		benchCreate(b, Target{Resource: r, Version: v, Namespace: "default"}, namedWidget, nil)
	})
	t := httpRouteTarget(b)
	for _, n := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("httproute-%d-rules", n), func(b *testing.B) {
			benchCreate(b, t, func(i int) []byte { return httpRoute(fmt.Sprintf("r%d", i), n) }, nil)
		})
	}
}

// BenchmarkValidationRulesStage measures the stage alone: on a kind
// without rules it returns before reading the object.
func BenchmarkValidationRulesStage(b *testing.B) {
	r, v := shippedWidget(b)
	routes := httpRouteTarget(b)
	route, err := routes.Version.Schema.Default(httpRoute("r", 16)) // as admit leaves it
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		w    *Write
	}{
		{"widget", &Write{Target: Target{Resource: r, Version: v}, Operation: CreateOperation, Object: widgetBody(1, "")}},
		{"httproute/create", &Write{Target: routes, Operation: CreateOperation, Object: route}},
		{"httproute/update", &Write{Target: routes, Operation: UpdateOperation, Object: route, Old: route}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.w.Object)))
			for b.Loop() {
				if err := validationRules(nil, c.w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchCreate times creates of body(i) through a Service with chain as
// its admission plug-ins (nil: none).
func benchCreate(b *testing.B, t Target, body func(int) []byte, chain *admission.Chain) {
	ctx := context.Background()
	s := benchService(chain)
	opts := WriteOptions{FieldValidation: FieldValidationWarn, FieldManager: "bench"}
	b.SetBytes(int64(len(body(0))))
	i := 0
	for b.Loop() {
		if i%freshStoreEvery == freshStoreEvery-1 {
			b.StopTimer()
			s = benchService(chain)
			b.StartTimer()
		}
		if _, err := s.Create(ctx, t, body(i), opts); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// freshStoreEvery is how many objects a benchmark creates in one
// in-memory store before it starts another, untimed. dynapi keeps objects
// in PostgreSQL, not in its heap: a store holding every object a run
// creates would give the garbage collector a heap that grows with b.N,
// and writes a share of its work that the server never pays.
const freshStoreEvery = 1000

// benchService is a Service over a fresh in-memory store, with chain as
// its admission plug-ins (nil: none).
func benchService(chain *admission.Chain) *Service {
	s := New(newMemStore())
	s.SetAdmission(chain)
	return s
}

// httpRouteTarget serves Gateway API's HTTPRoute, its definition fetched
// through the module proxy.
func httpRouteTarget(b *testing.B) Target {
	b.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", gatewayAPI)
	cmd.Dir = b.TempDir()
	out, err := cmd.Output()
	var info struct{ Dir string }
	if jsonErr := json.Unmarshal(out, &info); jsonErr != nil || info.Dir == "" {
		b.Fatalf("go mod download %s: %v %s", gatewayAPI, err, out)
	}
	crd, err := os.ReadFile(filepath.Join(info.Dir, "config/crd/standard/gateway.networking.k8s.io_httproutes.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "httproutes.yaml"), crd, 0o644); err != nil {
		b.Fatal(err)
	}
	snap, problems := registry.Load(os.DirFS(dir), os.DirFS(b.TempDir()))
	if len(problems) > 0 {
		b.Fatal(problems)
	}
	r, v, ok := snap.Lookup("gateway.networking.k8s.io", "v1", "httproutes")
	if !ok {
		b.Fatal("no httproutes")
	}
	return Target{Resource: r, Version: v, Namespace: "default"}
}

// httpRoute is an HTTPRoute with n rules, each with a path and a header
// match, a header filter and two weighted backends.
func httpRoute(name string, n int) []byte {
	rules := make([]string, n)
	for i := range rules {
		rules[i] = fmt.Sprintf(`{"matches":[{"path":{"type":"PathPrefix","value":"/app%d"},"headers":[{"type":"Exact","name":"x-env","value":"canary"}]}],`+
			`"filters":[{"type":"RequestHeaderModifier","requestHeaderModifier":{"add":[{"name":"x-route","value":"r%d"}]}}],`+
			`"backendRefs":[{"name":"svc-%d","port":8080,"weight":90},{"name":"svc-%d-canary","port":8080,"weight":10}]}`, i, i, i, i)
	}
	return fmt.Appendf(nil, `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":%q,"namespace":"default"},`+
		`"spec":{"parentRefs":[{"name":"gw","sectionName":"http"}],"hostnames":["app.example.com"],"rules":[%s]}}`, name, strings.Join(rules, ","))
}
