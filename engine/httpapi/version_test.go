package httpapi

import (
	"testing"

	"k8s.io/apimachinery/pkg/version"

	"github.com/dynapi/dynapi/engine/buildinfo"
)

// TestVersionDocument: a stamped build's commit, tree state and time are
// /version's gitCommit, gitTreeState and buildDate, beside the
// Kubernetes release it serves.
func TestVersionDocument(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kube string
		b    buildinfo.Info
		want version.Info
	}{
		{"released", "v1.37.0", buildinfo.Info{Version: "v1.4.0", Commit: "abc", Time: "2026-11-28T10:00:00Z", APIModule: "v0.37.2"},
			version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.0+dynapi", GitCommit: "abc", GitTreeState: "clean", BuildDate: "2026-11-28T10:00:00Z"}},
		{"dirty checkout", "v1.38.1", buildinfo.Info{Version: "(devel)", Commit: "abc", Modified: true, APIModule: "v0.38.0"},
			version.Info{Major: "1", Minor: "38", GitVersion: "v1.38.1+dynapi", GitCommit: "abc", GitTreeState: "dirty"}},
		{"no build information", "v1.37.0", buildinfo.Info{}, version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.0+dynapi"}},
	}
	for _, tt := range tests {
		got := newVersionDocument(tt.kube, tt.b).Info
		got.EmulationMajor, got.EmulationMinor, got.GoVersion, got.Compiler, got.Platform = "", "", "", "", ""
		if got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
