package operators

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGatekeeper runs OPA Gatekeeper's manager (v3.23.1) with the flags of
// its webhook Deployment and the kubeconfig of its ServiceAccount, as one
// process with all its operations (its default: the published manifest
// splits them between two Deployments; the CRD of a constraint is made by
// the audit one's "generate"). Its own certificate rotation writes the
// webhook's certificate into its Secret and its CA into the webhook
// configurations' caBundle through the API; then dynapi calls its
// validating and its mutating webhook (the subtests). --debug-use-fake-pod
// is Gatekeeper's own flag for running outside a cluster: dynapi serves no
// Pods for it to read its own from.
func TestGatekeeper(t *testing.T) {
	bins := operatorBinaries(t, "gatekeeper", "github.com/open-policy-agent/gatekeeper/v3")
	src := moduleDir(t, "gatekeeper", "github.com/open-policy-agent/gatekeeper/v3")

	apply(t, filepath.Join(src, "deploy/gatekeeper.yaml"))
	// The other tests share this dynapi, and one of these webhooks fails
	// every Namespace write while Gatekeeper does not answer: they go when
	// the test ends, however it ends.
	t.Cleanup(func() {
		kubectl(t, "", "delete", "validatingwebhookconfiguration,mutatingwebhookconfiguration", "-l", "gatekeeper.sh/system=yes")
	})
	kubectl(t, "", "wait", "--for=condition=Established", "--timeout=30s", "crd/constrainttemplates.templates.gatekeeper.sh")

	certs := t.TempDir()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	token := serviceAccountToken(t, "gatekeeper-system", "gatekeeper-admin")
	if err := writeKubeconfig(kubeconfig, api.url, api.ca.certFile, token, "gatekeeper-system"); err != nil {
		t.Fatal(err)
	}
	syncSecretVolume(t, "gatekeeper-system", "gatekeeper-webhook-server-cert", certs)
	manager := exec.Command(bins["gatekeeper"], "--kubeconfig", kubeconfig,
		"--host", "127.0.0.1", "--port", portOf(gatekeeperWebhook), "--cert-dir", certs,
		"--health-addr", freeAddress(t), "--prometheus-port", portOf(freeAddress(t)),
		"--exempt-namespace=gatekeeper-system", "--disable-opa-builtin={http.send}",
		"--debug-use-fake-pod", "--shutdown-delay=0") // no pod's endpoints to drain before it stops
	manager.Env = append(os.Environ(), "POD_NAMESPACE=gatekeeper-system", "NAMESPACE=gatekeeper-system")
	run(t, "gatekeeper", manager)

	eventually(t, time.Minute, "Gatekeeper's CA in its validating webhook's caBundle", func() bool {
		out, _ := kubectlAs(api.admin, "", "get", "validatingwebhookconfiguration", "gatekeeper-validating-webhook-configuration",
			"-o", "jsonpath={.webhooks[0].clientConfig.caBundle}")
		return out != ""
	})

	t.Run("its validating webhook refuses what a constraint forbids", func(t *testing.T) { gatekeeperValidates(t, src) })
	t.Run("its mutating webhook labels what a mutator matches", func(t *testing.T) { gatekeeperMutates(t, src) })
}

// gatekeeperValidates creates a ConstraintTemplate, waits for Gatekeeper to
// create its constraint's CRD through the API, creates a constraint that
// Namespaces carry the label gatekeeper, and sees dynapi refuse a Namespace
// without it with Gatekeeper's message, and accept one with it (the
// published demo's files).
func gatekeeperValidates(t *testing.T, src string) {
	kubectl(t, readFile(t, filepath.Join(src, "demo/basic/templates/k8srequiredlabels_template.yaml")), "apply", "-f", "-")
	eventually(t, time.Minute, "the constraint's CRD created by Gatekeeper", func() bool {
		_, err := kubectlAs(api.admin, "", "get", "crd", "k8srequiredlabels.constraints.gatekeeper.sh")
		return err == nil
	})
	kubectl(t, "", "wait", "--for=condition=Established", "--timeout=30s", "crd/k8srequiredlabels.constraints.gatekeeper.sh")
	kubectl(t, readFile(t, filepath.Join(src, "demo/basic/constraints/all_ns_must_have_gatekeeper.yaml")), "apply", "-f", "-")
	eventually(t, time.Minute, "the constraint enforced", func() bool {
		out, _ := kubectlAs(api.admin, "", "get", "k8srequiredlabels", "ns-must-have-gk", "-o", "jsonpath={.status.byPod[0].enforced}")
		return out == "true"
	})

	badNS := readFile(t, filepath.Join(src, "demo/basic/bad/bad_ns.yaml"))
	eventually(t, time.Minute, "Gatekeeper's webhook refusing Namespace bad-ns", func() bool {
		_, err := kubectlAs(api.admin, badNS, "create", "--dry-run=server", "-f", "-")
		return err != nil
	})
	_, err := kubectlAs(api.admin, badNS, "create", "-f", "-")
	const want = `admission webhook "validation.gatekeeper.sh" denied the request: [ns-must-have-gk] you must provide labels: {"gatekeeper"}`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("creating Namespace bad-ns: %v, want %s", err, want)
	}
	if _, err := kubectlAs(api.admin, "", "get", "namespace", "bad-ns"); err == nil {
		t.Error("Namespace bad-ns exists after its refusal")
	}
	kubectl(t, readFile(t, filepath.Join(src, "demo/basic/good/good_ns.yaml")), "create", "-f", "-")
}

// gatekeeperMutates creates the AssignMetadata mutator of Gatekeeper's own
// end-to-end tests (ConfigMaps labelled mutation/gatekeeper-test:
// assign-metadata get the label owner: gatekeeper) and sees a ConfigMap
// stored with the label Gatekeeper's mutating webhook added. That webhook
// has failurePolicy Ignore and a timeout of one second: a ConfigMap created
// before it answers in time is stored as sent, so the test waits for a
// server-side dry run to come back labelled first.
func gatekeeperMutates(t *testing.T, src string) {
	kubectl(t, readFile(t, filepath.Join(src, "test/bats/tests/mutations/k8sownerlabel_assignmetadata.yaml")), "apply", "-f", "-")
	eventually(t, time.Minute, "the mutator enforced", func() bool {
		out, _ := kubectlAs(api.admin, "", "get", "assignmetadata", "k8sownerlabel", "-o", "jsonpath={.status.byPod[0].enforced}")
		return out == "true"
	})
	const configMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mutated","namespace":"default",` +
		`"labels":{"mutation/gatekeeper-test":"assign-metadata"}},"data":{"k":"v"}}`
	eventually(t, time.Minute, "Gatekeeper's webhook labelling ConfigMap default/mutated", func() bool {
		out, _ := kubectlAs(api.admin, configMap, "create", "--dry-run=server", "-f", "-", "-o", "jsonpath={.metadata.labels.owner}")
		return out == "gatekeeper"
	})
	out := kubectl(t, configMap, "create", "-f", "-", "-o", "jsonpath={.metadata.labels.owner}")
	if stored := kubectl(t, "", "get", "configmap", "mutated", "-n", "default", "-o", "jsonpath={.metadata.labels.owner}"); out != "gatekeeper" || stored != "gatekeeper" {
		t.Errorf("ConfigMap default/mutated's label owner: %q created, %q stored, want gatekeeper", out, stored)
	}
}

// syncSecretVolume writes the keys of a Secret as files into dir and keeps
// them current until the test ends, as a kubelet keeps a Secret volume.
func syncSecretVolume(t *testing.T, namespace, name, dir string) {
	t.Helper()
	done := make(chan struct{})
	stopped := make(chan struct{})
	t.Cleanup(func() { close(done); <-stopped })
	go func() {
		defer close(stopped)
		for {
			writeSecretFiles(namespace, name, dir)
			select {
			case <-done:
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
}

// writeSecretFiles writes each key of the Secret into dir, if it exists.
func writeSecretFiles(namespace, name, dir string) {
	out, err := kubectlAs(api.admin, "", "get", "secret", name, "-n", namespace,
		"-o", `go-template={{range $k, $v := .data}}{{$k}}={{$v}}{{"\n"}}{{end}}`)
	if err != nil {
		return
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			continue
		}
		writeIfChanged(filepath.Join(dir, key), b)
	}
}

// writeIfChanged replaces file with content unless it holds it already,
// through a rename so that a reader never sees half a file.
func writeIfChanged(file string, content []byte) {
	if old, err := os.ReadFile(file); err == nil && string(old) == string(content) {
		return
	}
	tmp := file + ".tmp"
	if os.WriteFile(tmp, content, 0o600) == nil {
		_ = os.Rename(tmp, file)
	}
}

// readFile is the content of file, failing the test when it cannot be read.
func readFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// portOf is the port of a host:port address.
func portOf(addr string) string {
	return addr[strings.LastIndex(addr, ":")+1:]
}
