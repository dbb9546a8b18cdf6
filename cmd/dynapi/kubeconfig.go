package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/dynapi/dynapi/internal/pki"
)

// kubeconfig is the kubeconfig file serve writes into --data-dir: the
// fields of clientcmd's v1 Config that kubectl needs, written without
// client-go's machinery.
type kubeconfig struct {
	APIVersion     string          `json:"apiVersion"`
	Kind           string          `json:"kind"`
	Clusters       []namedCluster  `json:"clusters"`
	Users          []namedUser     `json:"users"`
	Contexts       []namedContext  `json:"contexts"`
	CurrentContext string          `json:"current-context"`
	Preferences    map[string]bool `json:"preferences"`
}

type namedCluster struct {
	Name    string `json:"name"`
	Cluster struct {
		Server                   string `json:"server"`
		CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
	} `json:"cluster"`
}

type namedUser struct {
	Name string `json:"name"`
	User struct {
		ClientCertificateData []byte `json:"client-certificate-data,omitempty"`
		ClientKeyData         []byte `json:"client-key-data,omitempty"`
	} `json:"user"`
}

type namedContext struct {
	Name    string `json:"name"`
	Context struct {
		Cluster string `json:"cluster"`
		User    string `json:"user"`
	} `json:"context"`
}

// writeKubeconfig writes --data-dir/kubeconfig (0600) for the server now
// listening at addr: the admin's certificate over TLS when bootstrapped,
// plain HTTP on loopback otherwise, and logs its path. Nothing when
// another authentication is configured (whose credentials dynapi has
// not) or there is no --data-dir (tests). Errors: reading the
// certificates, writing the file.
func (m *Main) writeKubeconfig(addr string) error {
	if m.Config.DataDir == "" || m.pki == nil && m.Config.Security.authenticated() {
		return nil
	}
	kc, err := m.kubeconfigFor(serverURL(addr, m.pki != nil))
	if err != nil {
		return err
	}
	data, err := yaml.Marshal(kc)
	if err != nil {
		return err
	}
	path, err := filepath.Abs(filepath.Join(m.Config.DataDir, "kubeconfig"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := pki.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	m.Logger.Info("kubeconfig written: export KUBECONFIG="+path, "server", kc.Clusters[0].Cluster.Server)
	return nil
}

// kubeconfigFor is the kubeconfig of server, with the admin's
// credentials when bootstrapped.
func (m *Main) kubeconfigFor(server string) (*kubeconfig, error) {
	kc := &kubeconfig{APIVersion: "v1", Kind: "Config", CurrentContext: "dynapi", Preferences: map[string]bool{},
		Clusters: []namedCluster{{Name: "dynapi"}}, Users: []namedUser{{Name: "dynapi"}}, Contexts: []namedContext{{Name: "dynapi"}}}
	kc.Clusters[0].Cluster.Server = server
	kc.Contexts[0].Context.Cluster, kc.Contexts[0].Context.User = "dynapi", "dynapi"
	if m.pki == nil {
		return kc, nil
	}
	var err error
	cluster, user := &kc.Clusters[0].Cluster, &kc.Users[0].User
	for _, f := range []struct {
		path string
		dst  *[]byte
	}{{m.pki.CA, &cluster.CertificateAuthorityData}, {m.pki.AdminCert, &user.ClientCertificateData}, {m.pki.AdminKey, &user.ClientKeyData}} {
		if *f.dst, err = os.ReadFile(f.path); err != nil {
			return nil, err
		}
	}
	return kc, nil
}

// serverURL is the URL a client on this machine reaches addr at: an
// unspecified address (0.0.0.0, ::) through loopback.
func serverURL(addr string, tls bool) string {
	host, port, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err == nil && (host == "" || ip != nil && ip.IsUnspecified()) {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	if tls {
		return "https://" + addr
	}
	return "http://" + addr
}
