package main

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dynapi/dynapi/internal/wait"
)

// monitoringFiles are the alert rules and the dashboard shipped for
// operators.
var monitoringFiles = []string{"../../docs/monitoring/alerts.yaml", "../../docs/monitoring/dashboard.json"}

// metricName finds the names of dynapi's and kube's metrics in a query.
var metricName = regexp.MustCompile(`\b(?:apiserver|dynapi|process|go)_[a-z_]+`)

// TestMonitoringFiles: every metric the alert rules and the dashboard
// name is on a running server's /metrics, once it served what each one
// counts: a refused definition file, a write, a watch event, a request
// terminated by its timeout.
func TestMonitoringFiles(t *testing.T) {
	url, _ := startPostgres(t)
	schemas, conversions := definitionsDir(t, "kind: [\n")
	base := "http://" + startMain(t, Config{DatabaseURL: url, Schemas: schemas, Conversions: conversions,
		CountMetricPollPeriod: 100 * time.Millisecond}).Addr()
	const configmaps = "/api/v1/namespaces/default/configmaps"
	watchOneEvent(t, base+configmaps, func() {
		if code, body := send(t, http.MethodPost, base+configmaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`); code != http.StatusCreated {
			t.Fatalf("create: %d %s", code, body)
		}
	})
	if code, body := httpGet(t, base+configmaps+"?timeout=1ns"); code != http.StatusGatewayTimeout {
		t.Fatalf("a list bounded by 1ns = %d %s; want 504", code, body)
	}
	var exposed string
	wait.Eventually(t, 10*time.Second, func() (bool, string) {
		_, exposed = httpGet(t, base+"/metrics")
		return strings.Contains(exposed, `apiserver_storage_objects{resource="configmaps"}`), "the objects counted"
	})
	for _, file := range monitoringFiles {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		names := metricName.FindAllString(string(text), -1)
		if len(names) < 10 {
			t.Errorf("%s names %d metrics: %v", file, len(names), names)
		}
		for _, name := range names {
			family := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_count"), "_sum")
			if !strings.Contains(exposed, "\n# TYPE "+family+" ") {
				t.Errorf("%s names %s, which /metrics does not serve", file, name)
			}
		}
	}
}

// watchOneEvent watches url, runs write, and reads the first event.
func watchOneEvent(t *testing.T, url string, write func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"?watch=true", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	write()
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || !strings.Contains(line, `"ADDED"`) {
		t.Fatalf("watch event %q: %v", line, err)
	}
}
