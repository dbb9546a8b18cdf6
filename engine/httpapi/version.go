package httpapi

import (
	"net/http"
	"runtime"
	"strings"

	"k8s.io/apimachinery/pkg/version"

	"github.com/dynapi/dynapi/engine/buildinfo"
	"github.com/dynapi/dynapi/engine/builtin"
)

// versionDocument is what /version serves: k8s.io/apimachinery's
// version.Info of the Kubernetes release whose API dynapi serves (that of
// the built-in definitions) (kubectl
// reads it at the start of some commands, prints it in `kubectl version`
// and warns on version skew from it), with dynapi's own build beside it.
type versionDocument struct {
	version.Info
	// DynapiVersion is dynapi's version (buildinfo.Info.Dynapi).
	DynapiVersion string `json:"dynapiVersion"`
}

// serverVersion is the document of this binary, read once.
var serverVersion = newVersionDocument(builtin.KubernetesVersion, buildinfo.Read())

// newVersionDocument describes a server of Kubernetes release kube built
// as b: gitVersion is kube with "+dynapi" build metadata (as k3s marks its own builds, which
// keeps semver's order, unlike a pre-release suffix); gitCommit,
// gitTreeState and buildDate are dynapi's commit, its state and its time.
func newVersionDocument(kube string, b buildinfo.Info) versionDocument {
	major, minor, _ := strings.Cut(strings.TrimPrefix(kube, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	return versionDocument{Info: version.Info{Major: major, Minor: minor, EmulationMajor: major, EmulationMinor: minor,
		GitVersion: kube + "+dynapi", GitCommit: b.Commit, GitTreeState: b.TreeState(), BuildDate: b.Time,
		GoVersion: runtime.Version(), Compiler: runtime.Compiler, Platform: runtime.GOOS + "/" + runtime.GOARCH},
		DynapiVersion: b.Dynapi()}
}

func (s *Server) handleVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, serverVersion)
}
