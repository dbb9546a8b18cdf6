package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/yaml"
)

// healthcheckTimeout bounds one probe: Docker's own default timeout is
// 30 s, and a server that takes longer than this to answer /readyz is
// not ready.
const healthcheckTimeout = 10 * time.Second

// healthcheck asks the server that wrote --data-dir/kubeconfig for
// /readyz?verbose and prints its answer: nil when it is 200, an error
// (exit 1) otherwise. Why a subcommand: the container image has no shell,
// curl or wget, so its HEALTHCHECK runs dynapi itself; and why the
// kubeconfig: it says where the server listens and which CA signed its
// certificate, whatever the bootstrap chose. No credentials are sent:
// /readyz is open to probes, as kube-apiserver's.
func healthcheck(ctx context.Context, cfg Config, stdout io.Writer) error {
	path := filepath.Join(cfg.DataDir, "kubeconfig")
	server, client, err := probeClient(path)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/readyz?verbose", nil)
	if err != nil {
		return fmt.Errorf("healthcheck: server of %s: %w", path, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s/readyz: %s\n%s", server, resp.Status, body)
	}
	_, err = stdout.Write(body)
	return err
}

// probeClient reads the kubeconfig at path and returns its server and
// an HTTP client that trusts its certificate authority.
func probeClient(path string) (string, *http.Client, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("%w (serve writes it once it listens)", err)
	}
	var kc kubeconfig
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(kc.Clusters) == 0 {
		return "", nil, fmt.Errorf("%s: no cluster", path)
	}
	cluster := kc.Clusters[0].Cluster
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if len(cluster.CertificateAuthorityData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cluster.CertificateAuthorityData) {
			return "", nil, fmt.Errorf("%s: no certificate in certificate-authority-data", path)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return cluster.Server, &http.Client{Transport: transport}, nil
}
