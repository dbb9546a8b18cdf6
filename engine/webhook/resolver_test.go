package webhook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServiceResolverResolve(t *testing.T) {
	t.Parallel()
	const serviceMap = `
operators/webhook-service: 127.0.0.1:9443
operators/webhook-service:8443: 127.0.0.1:9444
`
	tests := []struct {
		name, template           string
		namespace, service, want string
		port                     int32
	}{
		{"default template: kube's DNS form", "", "ns", "svc-name", "svc-name.ns.svc:443", 443},
		{"template", "{{.Namespace}}-{{.Name}}.local:{{.Port}}", "ns", "svc-name", "ns-svc-name.local:8443", 8443},
		{"template, one address for all", "127.0.0.1:9443", "ns", "svc-name", "127.0.0.1:9443", 443},
		{"map by name", "", "operators", "webhook-service", "127.0.0.1:9443", 443},
		{"map by name and port first", "", "operators", "webhook-service", "127.0.0.1:9444", 8443},
		{"not in the map: the template", "", "operators", "other", "other.operators.svc:443", 443},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := NewServiceResolver(tt.template, []byte(serviceMap))
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Resolve(tt.namespace, tt.service, tt.port)
			if err != nil || got != tt.want {
				t.Errorf("Resolve = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestServiceResolverRefuses: a setting that cannot give an address to
// dial is refused at start, naming the problem.
func TestServiceResolverRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, template, serviceMap, want string }{
		{"template does not parse", "{{.Name", "", "parse webhook service resolver template"},
		{"template with an unknown field", "{{.Host}}:443", "", "can't evaluate field Host"},
		{"template gives a URL", "https://{{.Name}}.{{.Namespace}}.svc:{{.Port}}{{.Path}}", "", "can't evaluate field Path"},
		{"template gives no port", "{{.Name}}.{{.Namespace}}.svc", "", `gave "name.namespace.svc": want host:port`},
		{"map is not YAML of strings", "", "a: [b]", "webhook service map"},
		{"map key without a namespace", "", "svc: 127.0.0.1:9443", `"svc": want namespace/name`},
		{"map key with a bad port", "", "ns/svc:0: 127.0.0.1:9443", "port must be between 1 and 65535"},
		{"map address without a port", "", "ns/svc: 127.0.0.1", `"ns/svc": "127.0.0.1": want host:port`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewServiceResolver(tt.template, []byte(tt.serviceMap))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewServiceResolver error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestLoadServiceResolver(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "webhook-services.yaml")
	if err := os.WriteFile(file, []byte("ns/svc-name: 127.0.0.1:9443\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := LoadServiceResolver("", file)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Resolve("ns", "svc-name", 443); got != "127.0.0.1:9443" {
		t.Errorf("Resolve = %q, want the file's entry", got)
	}
	if _, err := LoadServiceResolver("", file+".missing"); err == nil {
		t.Error("a missing map file was accepted")
	}
}
