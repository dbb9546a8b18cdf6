package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestRoutingAdd(t *testing.T) {
	metrics := `# HELP dynapi_storage_reads_total Reads.
dynapi_storage_reads_total{op="get",target="/tmp/r:5432"} 30
dynapi_storage_reads_total{op="get",target="primary"} 10
dynapi_storage_reads_total{op="list",target="/tmp/r:5432"} 4
dynapi_storage_replica_fallbacks_total{reason="lag",replica="/tmp/r:5432"} 2
dynapi_storage_read_routing_seconds_sum 0.02
dynapi_storage_read_routing_seconds_count 40`
	r := &routing{Replica: map[string]float64{}, Primary: map[string]float64{}, Fallbacks: map[string]float64{}}
	for _, line := range strings.Split(metrics, "\n") {
		r.add(line)
	}
	want := &routing{Replica: map[string]float64{"get": 30, "list": 4}, Primary: map[string]float64{"get": 10},
		Fallbacks: map[string]float64{"lag": 2}, choiceSeconds: 0.02, choices: 40}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("routing = %+v\nwant      %+v", r, want)
	}
}
