package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/postgres"
	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

// TestStoreMetrics: the object counts per resource (a resource emptied
// reads 0), the latency of each request by operation and resource, and
// the pool's statistics.
func TestStoreMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	s, err := postgres.OpenWithOptions(context.Background(), pgtest.Open(t), postgres.Options{Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	createNamespace(t, s, "default")
	for i := range 3 {
		mustCreate(t, s, newObject(pipes, "default", fmt.Sprint("p", i), nil))
	}
	valve := mustCreate(t, s, newObject(valves, "default", "v", nil))
	if _, err := s.Get(context.Background(), valve.Key); err != nil {
		t.Fatal(err)
	}
	mustCountObjects(t, s)
	if _, err := s.Delete(context.Background(), engine.Object{Key: valve.Key}); err != nil {
		t.Fatal(err)
	}
	mustCountObjects(t, s) // valves, counted before, now read 0
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"apiserver_storage_objects", map[string]string{"resource": "pipes.example.com"}, 3},
		{"apiserver_storage_objects", map[string]string{"resource": "namespaces"}, 1},
		{"apiserver_resource_objects", map[string]string{"group": "example.com", "resource": "pipes"}, 3},
		{"apiserver_resource_objects", map[string]string{"group": "example.com", "resource": "valves"}, 0},
		{"dynapi_storage_request_duration_seconds", map[string]string{"operation": "create", "group": "example.com", "resource": "pipes"}, 3},
		{"dynapi_storage_request_duration_seconds", map[string]string{"operation": "get", "group": "example.com", "resource": "valves"}, 1},
		{"dynapi_storage_request_duration_seconds", map[string]string{"operation": "delete", "group": "example.com", "resource": "valves"}, 1},
		{"dynapi_storage_pool_acquired_connections", nil, 0},
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if got, ok := sample(families, tt.name, tt.labels); !ok || got != tt.want {
			t.Errorf("%s%v = %v (found %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
	if got, _ := sample(families, "dynapi_storage_pool_max_connections", nil); got < 4 {
		t.Errorf("dynapi_storage_pool_max_connections = %v, want the pool's size", got)
	}
}

func mustCountObjects(t *testing.T, s *postgres.Store) {
	t.Helper()
	if err := postgres.CountObjects(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

// sample is the value of the series of name with labels among families:
// a gauge's or counter's value, a histogram's count.
func sample(families []*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if !hasLabels(m, labels) {
				continue
			}
			switch {
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount()), true
			}
		}
	}
	return 0, false
}

func hasLabels(m *dto.Metric, labels map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := labels[l.GetName()]; ok && v == l.GetValue() {
			found++
		}
	}
	return found == len(labels)
}

// BenchmarkObjectCounts measures one count of apiserver_storage_objects
// over a million objects of ten resources, which countEvery runs once a
// minute.
//
//	go test -run NONE -bench ObjectCounts -benchtime 5x ./engine/postgres/
func BenchmarkObjectCounts(b *testing.B) {
	s, err := postgres.OpenWithOptions(context.Background(), pgtest.Open(b), postgres.Options{Metrics: prometheus.NewRegistry()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	const fill = `INSERT INTO objects (resource, namespace, name, resource_version, stored_version, body)
		SELECT 'r' || (i % 10) || '.example.com', 'default', 'o' || i, i, 'v1', '{"spec":{}}' FROM generate_series(1, 1000000) i`
	if err := postgres.ExecForTest(context.Background(), s, fill); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := postgres.CountObjects(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
}
