package main

import (
	"testing"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
)

func TestDescribeMigration(t *testing.T) {
	pipes := engine.GroupResource{Group: "plumbing.example.com", Resource: "pipes"}
	tests := []struct {
		report resource.MigrateReport
		want   string
	}{
		{resource.MigrateReport{Resource: pipes, Before: map[string]int{}}, "pipes.plumbing.example.com: no objects"},
		{resource.MigrateReport{Resource: pipes, Before: map[string]int{"v2": 10, "v1": 3}, Rewritten: 2, Skipped: 1},
			"pipes.plumbing.example.com: stored in v1=3 v2=10; rewrote 2 into v2, skipped 1"},
	}
	for _, tt := range tests {
		if got := describeMigration(tt.report, "v2"); got != tt.want {
			t.Errorf("describeMigration = %q, want %q", got, tt.want)
		}
	}
}
