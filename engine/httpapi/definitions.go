package httpapi

import (
	"net/http"

	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/reload"
)

// definitionReporter is a Snapshots that tells how its current snapshot
// was built; *reload.Reloader is one.
type definitionReporter interface {
	// Problems returns the problems of the current snapshot's build.
	Problems() []registry.Problem
	// SchemaChecks returns the latest check of each changed resource.
	SchemaChecks() []reload.SchemaCheck
}

// The document of GET /debug/definitions.
type (
	definitionStatus struct {
		Resources    []definitionResource `json:"resources"`
		Problems     []definitionProblem  `json:"problems"`
		SchemaChecks []reload.SchemaCheck `json:"schemaChecks"`
	}
	definitionResource struct {
		Group          string              `json:"group"`
		Kind           string              `json:"kind"`
		Resource       string              `json:"resource"`
		Versions       []definitionVersion `json:"versions"`
		StorageVersion string              `json:"storageVersion"`
		File           string              `json:"file"`
		ConversionFile string              `json:"conversionFile,omitempty"`
		// Stale marks a previous definition serving on because its file
		// was refused (see the problems).
		Stale bool `json:"stale,omitempty"`
	}
	definitionVersion struct {
		Name   string `json:"name"`
		Served bool   `json:"served"`
	}
	definitionProblem struct {
		File       string `json:"file"`
		Line       int    `json:"line,omitempty"`
		Reason     string `json:"reason"`
		Conversion bool   `json:"conversion,omitempty"` // File is in the conversions folder, not schemas
		// Warning marks what refused nothing (registry.Problem.Warning).
		Warning bool `json:"warning,omitempty"`
	}
)

// handleDefinitions serves GET /debug/definitions: every resource of the
// current snapshot with the files it came from, and, when the snapshots
// are reloaded, the problems of the last build and the schema checks.
func (s *Server) handleDefinitions(w http.ResponseWriter, r *http.Request) {
	snap := s.snapshots.Load()
	doc := definitionStatus{Resources: []definitionResource{}, Problems: []definitionProblem{}, SchemaChecks: []reload.SchemaCheck{}}
	for _, res := range snap.Resources() {
		doc.Resources = append(doc.Resources, definitionDoc(snap, res))
	}
	if rep, ok := s.snapshots.(definitionReporter); ok {
		for _, p := range rep.Problems() {
			doc.Problems = append(doc.Problems, definitionProblem{File: p.File, Line: p.Line, Reason: p.Reason,
				Conversion: p.Conversion, Warning: p.Warning})
		}
		doc.SchemaChecks = append(doc.SchemaChecks, rep.SchemaChecks()...)
	}
	w.Header().Set("Cache-Control", "no-cache, private")
	writeJSON(w, http.StatusOK, doc)
}

func definitionDoc(snap *registry.Snapshot, r *registry.Resource) definitionResource {
	d := definitionResource{Group: r.Group, Kind: r.Kind, Resource: r.Plural, StorageVersion: r.StorageVersion,
		File: r.File, ConversionFile: r.ConversionFile, Stale: snap.Stale(r)}
	for _, v := range r.Versions {
		d.Versions = append(d.Versions, definitionVersion{Name: v.Name, Served: v.Served})
	}
	return d
}
