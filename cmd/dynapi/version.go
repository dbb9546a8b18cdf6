package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/dynapi/dynapi/engine/buildinfo"
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
// serves, one line each, as the build recorded them (buildinfo).
func versionLines(info *debug.BuildInfo) []string {
	b := buildinfo.From(info)
	kube := "unknown"
	switch {
	case b.Kubernetes() != "":
		kube = b.Kubernetes() + " (k8s.io/api " + b.APIModule + ")"
	case b.APIModule != "":
		kube = "k8s.io/api " + b.APIModule
	}
	return []string{"dynapi version: " + b.Dynapi(), "Kubernetes API version: " + kube}
}
