package webhook

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"
)

// DefaultServiceTemplate is kube's DNS form of a service's address: what a
// kube-apiserver inside a cluster dials (through cluster DNS).
const DefaultServiceTemplate = "{{.Name}}.{{.Namespace}}.svc:{{.Port}}"

// ServiceResolver turns a service reference into the address (host:port)
// to dial. dynapi has no Service network, so it is a setting: a static map
// for the services named one by one, then a template for every other one.
// Both, because they answer two situations: an operator's webhook run next
// to dynapi on a port of its own needs one line in the map; services behind
// a DNS that follows a pattern (a cluster's, a sidecar's, an /etc/hosts) need
// one template for them all. The certificate is verified for
// name.namespace.svc whatever the address (see Client).
// A ServiceResolver is immutable and safe for concurrent use.
type ServiceResolver struct {
	template *template.Template
	// entries maps "namespace/name:port" and "namespace/name" to host:port.
	entries map[string]string
}

// serviceFields are what a template sees: {{.Namespace}}, {{.Name}} and
// {{.Port}}.
type serviceFields struct {
	Namespace, Name string
	Port            int32
}

// NewServiceResolver builds a resolver from a template (empty:
// DefaultServiceTemplate) and the YAML of a map (may be empty): one entry a
// line, "namespace/name[:port]: host:port". It returns an error naming the
// problem when the template does not parse or render a host:port, or an
// entry is malformed.
func NewServiceResolver(tmpl string, mapYAML []byte) (*ServiceResolver, error) {
	if tmpl == "" {
		tmpl = DefaultServiceTemplate
	}
	t, err := template.New("webhook service resolver").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return nil, fmt.Errorf("parse webhook service resolver template: %w", err)
	}
	r := &ServiceResolver{template: t}
	if _, err := r.render("namespace", "name", DefaultServicePort); err != nil {
		return nil, err
	}
	if r.entries, err = parseServiceMap(mapYAML); err != nil {
		return nil, err
	}
	return r, nil
}

// LoadServiceResolver is NewServiceResolver with the map read from a file
// (none when mapFile is empty). The file is read once: a change takes
// effect at the next start.
func LoadServiceResolver(tmpl, mapFile string) (*ServiceResolver, error) {
	var data []byte
	if mapFile != "" {
		var err error
		if data, err = os.ReadFile(mapFile); err != nil {
			return nil, fmt.Errorf("read webhook service map: %w", err)
		}
	}
	r, err := NewServiceResolver(tmpl, data)
	if err != nil && mapFile != "" {
		return nil, fmt.Errorf("%s: %w", mapFile, err)
	}
	return r, err
}

// Resolve returns the address to dial for the service namespace/name at
// port: the map's entry for "namespace/name:port", else for
// "namespace/name", else the template's.
func (r *ServiceResolver) Resolve(namespace, name string, port int32) (string, error) {
	if namespace == "" || name == "" || port == 0 {
		return "", fmt.Errorf("cannot resolve an empty service name or namespace or port") // kube's words
	}
	key := namespace + "/" + name
	if addr, ok := r.entries[key+":"+strconv.Itoa(int(port))]; ok {
		return addr, nil
	}
	if addr, ok := r.entries[key]; ok {
		return addr, nil
	}
	return r.render(namespace, name, port)
}

// render executes the template, and checks that it gave a host:port.
func (r *ServiceResolver) render(namespace, name string, port int32) (string, error) {
	var b bytes.Buffer
	if err := r.template.Execute(&b, serviceFields{Namespace: namespace, Name: name, Port: port}); err != nil {
		return "", fmt.Errorf("webhook service resolver template: %w", err)
	}
	addr := strings.TrimSpace(b.String())
	if err := checkAddress(addr); err != nil {
		return "", fmt.Errorf("webhook service resolver template gave %q: %w", addr, err)
	}
	return addr, nil
}

// parseServiceMap reads the map's YAML, and checks every key and address.
func parseServiceMap(data []byte) (map[string]string, error) {
	entries := map[string]string{}
	if len(bytes.TrimSpace(data)) == 0 {
		return entries, nil
	}
	if err := yaml.UnmarshalStrict(data, &entries); err != nil {
		return nil, fmt.Errorf("webhook service map: %w", err)
	}
	for key, addr := range entries {
		if err := checkServiceKey(key); err != nil {
			return nil, fmt.Errorf("webhook service map: %q: %w", key, err)
		}
		if err := checkAddress(addr); err != nil {
			return nil, fmt.Errorf("webhook service map: %q: %q: %w", key, addr, err)
		}
	}
	return entries, nil
}

// checkServiceKey checks a map key, namespace/name[:port].
func checkServiceKey(key string) error {
	ref, port, hasPort := strings.Cut(key, ":")
	namespace, name, ok := strings.Cut(ref, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("want namespace/name or namespace/name:port")
	}
	if hasPort {
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("port must be between 1 and 65535, inclusive")
		}
	}
	return nil
}

// checkAddress checks a host:port with a port number, the form to dial.
func checkAddress(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want host:port: %w", err)
	}
	if p, err := strconv.Atoi(port); host == "" || err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("want host:port, with a port between 1 and 65535")
	}
	return nil
}
