package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// printVersion prints what versionLines says of this binary.
func printVersion(stdout io.Writer) error {
	info, _ := debug.ReadBuildInfo() // nil without module support: versionLines says "unknown"
	for _, line := range versionLines(info) {
		fmt.Fprintln(stdout, line)
	}
	return nil
}

// versionLines are dynapi's version and the Kubernetes API version it
// serves, one line each, as the build recorded them: the module version
// (go install …@v1.2.3), else the commit, its time and whether the work
// tree had changes (go build in a checkout); the Kubernetes version is
// that of the k8s.io/api module it was built with (v0.N.M is
// Kubernetes v1.N.M).
func versionLines(info *debug.BuildInfo) []string {
	return []string{"dynapi version: " + dynapiVersion(info), "Kubernetes API version: " + kubernetesVersion(info)}
}

// dynapiVersion is the main module's version, or what VCS stamping says.
func dynapiVersion(info *debug.BuildInfo) string {
	if info == nil {
		return "unknown"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	rev := settings["vcs.revision"]
	if rev == "" {
		return "(devel)"
	}
	out := rev
	if t := settings["vcs.time"]; t != "" {
		out += " " + t
	}
	if settings["vcs.modified"] == "true" {
		out += " dirty"
	}
	return out
}

// kubernetesVersion is the Kubernetes release of the k8s.io/api module
// the binary was built with.
func kubernetesVersion(info *debug.BuildInfo) string {
	if info == nil {
		return "unknown"
	}
	for _, d := range info.Deps {
		if d.Path != "k8s.io/api" {
			continue
		}
		if d.Replace != nil {
			d = d.Replace
		}
		if minor, ok := strings.CutPrefix(d.Version, "v0."); ok {
			return "v1." + minor + " (k8s.io/api " + d.Version + ")"
		}
		return "k8s.io/api " + d.Version
	}
	return "unknown"
}
