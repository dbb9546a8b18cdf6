package storageversionmigration

import (
	"errors"
	"testing"

	"github.com/dynapi/dynapi/engine/storagemigration"
)

// runningMessage words progress as kube's migrationRunningMessage does
// (pkg/controller/storageversionmigrator/util.go).
func TestRunningMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		report    *storagemigration.Report
		transient error
		want      string
	}{
		{nil, nil, "The migration is running"},
		{&storagemigration.Report{}, nil, "The migration is running"},
		{&storagemigration.Report{Total: 3, Seen: 2}, nil, "The migration is running, 1/3 objects not yet migrated"},
		{&storagemigration.Report{Total: 3, Seen: 3}, nil, "The migration is running, 3 objects verified migrated"},
		{&storagemigration.Report{Total: 2, Seen: 3}, nil, "The migration is running, 2 objects verified migrated"},
		{&storagemigration.Report{Total: 3, Seen: 2}, errors.New("webhook down"),
			"The migration is running, 1/3 objects not yet migrated; transient error: webhook down"},
	}
	for _, tt := range tests {
		if got := runningMessage(tt.report, tt.transient); got != tt.want {
			t.Errorf("runningMessage(%+v, %v) = %q, want %q", tt.report, tt.transient, got, tt.want)
		}
	}
}
