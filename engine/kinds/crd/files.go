package crd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// A kind that a definition file serves may be defined through the API too:
// installers (Helm, Argo CD, operators' own) apply the CRDs they ship
// whatever the server already serves, and wait for Established. Such a
// definition matches the file when it declares the same group, names
// (plural, singular, kind, listKind, shortNames), scope and versions (each
// with the same served and storage flags and the same schema): it is then
// stored and reported Established, served by the file. One that differs is
// refused when it is written, with the file's name: the file is the
// operator's, and it wins.

// fileKind returns the resource a definition file serves (not a built-in
// kind, a review or a definition through the API) under the group and
// plural of the CustomResourceDefinition obj.
func fileKind(snap *registry.Snapshot, obj []byte) (*registry.Resource, bool) {
	if snap == nil {
		return nil, false
	}
	spec := gjson.GetBytes(obj, "spec")
	return fileKindOf(snap, engine.GroupResource{Group: spec.Get("group").Str, Resource: spec.Get("names.plural").Str})
}

// fileKindOf is fileKind by the definition's group and plural.
func fileKindOf(snap *registry.Snapshot, gr engine.GroupResource) (*registry.Resource, bool) {
	// Why by key: servable asks about every definition at each hand.
	r, ok := snap.Resource(gr)
	if !ok || registry.IsAPIFile(r.File) || registry.IsBuiltinFile(r.File) {
		return nil, false
	}
	return r, true
}

// differences says how the CustomResourceDefinition obj differs from the
// file's resource r: nothing when it matches. A definition the registry
// refuses on its own differs in nothing here (Check reports it).
func differences(r *registry.Resource, obj []byte) []string {
	if isDerived(r, obj) {
		return nil
	}
	return loadedDifferences(r, obj)
}

// loadedDifferences is differences, found by loading obj: what isDerived
// shortcuts.
func loadedDifferences(r *registry.Resource, obj []byte) []string {
	snap, _ := loadAlone(obj)
	if snap == nil || len(snap.Resources()) != 1 {
		return nil
	}
	d := snap.Resources()[0]
	var out []string
	differ := func(what string, file, api any) {
		out = append(out, fmt.Sprintf("%s: %v in the definition file, %v here", what, file, api))
	}
	if namesOf(d).String() != namesOf(r).String() {
		differ("spec.names", namesOf(r), namesOf(d))
	}
	if d.Namespaced != r.Namespaced {
		differ("spec.scope", scope(r), scope(d))
	}
	if !slices.Equal(versionNames(d), versionNames(r)) {
		differ("spec.versions", versionNames(r), versionNames(d))
		return out
	}
	for i, v := range d.Versions {
		fv := r.Versions[i]
		if v.Served != fv.Served || v.Storage != fv.Storage {
			differ(fmt.Sprintf("spec.versions[%s] served, storage", v.Name), []bool{fv.Served, fv.Storage}, []bool{v.Served, v.Storage})
		}
		if !sameSchema(v, fv) {
			out = append(out, fmt.Sprintf("spec.versions[%s].schema differs from the definition file's", v.Name))
		}
	}
	return out
}

// refuseDiffering is the field error of a definition written through the
// API for a kind a definition file serves, which differs from the file.
func refuseDiffering(snap *registry.Snapshot, obj []byte) []engine.FieldError {
	r, ok := fileKind(snap, obj)
	if !ok {
		return nil
	}
	diff := differences(r, obj)
	if len(diff) == 0 {
		return nil
	}
	return []engine.FieldError{{Type: engine.CauseInvalid, Path: "spec", Message: fmt.Sprintf(
		"Invalid value: %q: the definition file %s serves %s and wins; this definition differs from it: %s",
		nameOf(obj), r.File, r.GroupResource(), strings.Join(diff, "; "))}}
}

// servedByFile returns the file resource that serves the definition d
// when d matches it. What d's spec was found to be against a resource is
// kept with d: a hand asks about every definition, and a status write
// changes no spec.
func servedByFile(snap *registry.Snapshot, d *definition) (*registry.Resource, bool) {
	if snap == nil {
		return nil, false
	}
	r, ok := fileKindOf(snap, engine.GroupResource{Group: d.group, Resource: d.names.Plural})
	if !ok {
		return nil, false
	}
	if d.comparedWith != r {
		d.comparedWith, d.matches = r, len(differences(r, d.obj)) == 0
	}
	return r, d.matches
}

// definitionFile is the type of the condition of a definition that a
// definition file serves.
const definitionFile = "DefinitionFile"

// fileCondition says which definition file serves a definition.
func fileCondition(r *registry.Resource) condition {
	return condition{Type: definitionFile, Status: "True", Reason: "ServedByDefinitionFile",
		Message: "the kind is served from the definition file " + r.File}
}

func (n names) String() string {
	short := slices.Clone(n.ShortNames)
	slices.Sort(short)
	return fmt.Sprintf("plural %q, singular %q, kind %q, listKind %q, shortNames %q", n.Plural, n.Singular, n.Kind, n.ListKind, short)
}

func scope(r *registry.Resource) string {
	if r.Namespaced {
		return "Namespaced"
	}
	return "Cluster"
}

func versionNames(r *registry.Resource) []string {
	out := make([]string, len(r.Versions))
	for i, v := range r.Versions {
		out[i] = v.Name
	}
	return out
}

// sameSchema reports whether two versions have the same schema (JSON
// equal), or none.
func sameSchema(a, b *registry.Version) bool {
	if a.Schema == nil || b.Schema == nil {
		return a.Schema == b.Schema
	}
	return jsoneq.Equal(a.Schema.RawShared(), b.Schema.RawShared())
}
