package operators

import (
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSealedSecrets runs sealed-secrets' controller (bitnami-labs v0.40.0)
// as a pod runs it: rest.InClusterConfig, the only configuration it reads,
// finds a ServiceAccount token from TokenRequest and dynapi's CA at the
// paths a kubelet mounts them. It creates its sealing key (a Secret), serves
// its certificate, and unseals a SealedSecret made by kubeseal into the
// Secret it stands for, reporting Synced in the SealedSecret's status.
func TestSealedSecrets(t *testing.T) {
	bins := operatorBinaries(t, "sealed-secrets",
		"github.com/bitnami/sealed-secrets/cmd/controller", "github.com/bitnami/sealed-secrets/cmd/kubeseal")
	src := moduleDir(t, "sealed-secrets", "github.com/bitnami/sealed-secrets")

	kubectl(t, "", "create", "namespace", "sealed-secrets")
	kubectl(t, "", "create", "namespace", "shop")
	apply(t, filepath.Join(src, "helm/sealed-secrets/crds/bitnami.com_sealedsecrets.yaml"))
	kubectl(t, "", "wait", "--for=condition=Established", "--timeout=30s", "crd/sealedsecrets.bitnami.com")
	apply(t, "testdata/sealed-secrets/rbac.yaml")

	listen := freeAddress(t)
	run(t, "sealed-secrets-controller", inPod(t, "sealed-secrets", serviceAccountToken(t, "sealed-secrets", "sealed-secrets-controller"),
		bins["controller"], "--listen-addr", listen, "--listen-metrics-addr", freeAddress(t), "--key-size", "2048"))
	cert := sealingCertificate(t, "http://"+listen+"/v1/cert.pem")

	secret := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"shop"},"data":{"password":"` +
		base64.StdEncoding.EncodeToString([]byte("s3cret")) + `"}}`
	seal := exec.Command(bins["kubeseal"], "--kubeconfig", api.admin, "--cert", cert, "--format", "yaml")
	seal.Stdin = strings.NewReader(secret)
	sealed, err := seal.Output()
	if err != nil {
		t.Fatalf("kubeseal: %v", err)
	}
	kubectl(t, string(sealed), "apply", "-f", "-")

	eventually(t, time.Minute, "the SealedSecret unsealed into Secret shop/db", func() bool {
		out, err := kubectlAs(api.admin, "", "get", "secret", "db", "-n", "shop", "-o", "jsonpath={.data.password}")
		return err == nil && out == base64.StdEncoding.EncodeToString([]byte("s3cret"))
	})
	owner := kubectl(t, "", "get", "secret", "db", "-n", "shop", "-o", "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}")
	if owner != "SealedSecret/db" {
		t.Errorf("Secret shop/db's owner = %q, want SealedSecret/db", owner)
	}
	eventually(t, 30*time.Second, "the SealedSecret's Synced condition True", func() bool {
		out, _ := kubectlAs(api.admin, "", "get", "sealedsecret", "db", "-n", "shop", "-o", `jsonpath={.status.conditions[?(@.type=="Synced")].status}`)
		return out == "True"
	})
}

// sealingCertificate waits for the controller to serve its sealing
// certificate and writes it to a file, as `kubeseal --fetch-cert` would.
func sealingCertificate(t *testing.T, url string) string {
	t.Helper()
	var pem []byte
	eventually(t, time.Minute, "the controller's certificate at "+url, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		pem, err = io.ReadAll(resp.Body)
		return err == nil && resp.StatusCode == http.StatusOK
	})
	file := filepath.Join(t.TempDir(), "cert.pem")
	if err := os.WriteFile(file, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// inPod is a command that runs program as a pod of the ServiceAccount with
// that token would run: the kubelet's service-account files (token, ca.crt,
// namespace) at /var/run/secrets/kubernetes.io/serviceaccount, in a mount
// namespace of its own (unshare; root), and the KUBERNETES_SERVICE_* variables
// naming dynapi. It is for programs that read only rest.InClusterConfig.
func inPod(t *testing.T, namespace, token, program string, args ...string) *exec.Cmd {
	t.Helper()
	files := t.TempDir()
	for name, content := range map[string][]byte{"token": []byte(token), "ca.crt": api.ca.pem, "namespace": []byte(namespace)} {
		if err := os.WriteFile(filepath.Join(files, name), content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const mount = `mount -t tmpfs tmpfs /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount && ` +
		`mount --bind "$0" /run/secrets/kubernetes.io/serviceaccount && exec "$@"`
	cmd := exec.Command("unshare", append([]string{"--mount", "sh", "-c", mount, files, program}, args...)...)
	cmd.Env = append(os.Environ(), "KUBERNETES_SERVICE_HOST=127.0.0.1", "KUBERNETES_SERVICE_PORT="+api.port)
	return cmd
}
