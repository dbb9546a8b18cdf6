// Package buildinfo says what this binary is, as the Go build recorded
// it: dynapi's own version (the module version, else the commit, its time
// and whether the work tree had changes) and the Kubernetes release whose
// API it serves, that of the k8s.io/api module it was built with (v0.N.M
// is Kubernetes v1.N.M). `dynapi version` prints it and /version serves it.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Info is what the build recorded; a field it did not record is empty.
type Info struct {
	// Version is the main module's version ("v1.4.0", or "(devel)" when
	// built in a checkout).
	Version string
	// Commit, Time and Modified are the VCS stamp of a build in a checkout.
	Commit, Time string
	Modified     bool
	// APIModule is the version of k8s.io/api ("v0.37.2"), after replaces.
	APIModule string
}

// Read is the running binary's Info.
func Read() Info {
	info, _ := debug.ReadBuildInfo() // nil without module support: an empty Info
	return From(info)
}

// From reads what info recorded; nil gives an empty Info.
func From(info *debug.BuildInfo) Info {
	if info == nil {
		return Info{}
	}
	out := Info{Version: info.Main.Version}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			out.Commit = s.Value
		case "vcs.time":
			out.Time = s.Value
		case "vcs.modified":
			out.Modified = s.Value == "true"
		}
	}
	for _, d := range info.Deps {
		if d.Path != "k8s.io/api" {
			continue
		}
		if d.Replace != nil {
			d = d.Replace
		}
		out.APIModule = d.Version
	}
	return out
}

// Dynapi is dynapi's version in one word or three: the module version of
// a release, else the commit, its time and "dirty" for a build of a work
// tree with changes; "(devel)" without a stamp and "unknown" with no
// build information at all.
func (i Info) Dynapi() string {
	if i.Version != "" && i.Version != "(devel)" {
		return i.Version
	}
	if i.Commit == "" {
		if i.Version == "" {
			return "unknown"
		}
		return i.Version
	}
	out := i.Commit
	if i.Time != "" {
		out += " " + i.Time
	}
	if i.Modified {
		out += " dirty"
	}
	return out
}

// Kubernetes is the Kubernetes release whose API is served ("v1.37.2"),
// or "" when the build did not record k8s.io/api or its version is not
// v0.N.M.
func (i Info) Kubernetes() string {
	minor, ok := strings.CutPrefix(i.APIModule, "v0.")
	if !ok {
		return ""
	}
	return "v1." + minor
}

// TreeState is kube's gitTreeState: "clean" or "dirty" for a stamped
// build, "" otherwise.
func (i Info) TreeState() string {
	switch {
	case i.Commit == "":
		return ""
	case i.Modified:
		return "dirty"
	}
	return "clean"
}
