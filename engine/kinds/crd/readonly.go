package crd

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/internal/json/jsoneq"
)

// Through the API a published definition (see publish.go) is the file's:
// its spec may not differ from the file (422, see files.go; where the
// process serving the request has no such file, its spec may not change
// at all), its two annotations are the server's, and it may not be
// deleted while the file serves its kind (403). Its labels and other
// annotations may change: installers add theirs.

// refuseFileDelete refuses the delete of a definition for a kind a
// definition file serves: the file serves it, so only removing the file
// removes it. Kube's words for an object the server keeps whatever the
// user's rights (its namespaces "default" and "kube-system"): 403. A
// process without the file lets a published definition go, its objects
// kept: that is how one left behind by a file removed while no process
// ran is removed.
func refuseFileDelete(snap *registry.Snapshot, name string, obj []byte) error {
	r, ok := fileKind(snap, obj)
	if !ok {
		return nil
	}
	return &engine.Error{Code: engine.CodeForbidden, Group: GroupResource.Group, Kind: GroupResource.Resource, Name: name,
		Message: fmt.Sprintf("%s %q is forbidden: the definition file %s serves %s: remove the file to remove the definition (its objects are kept)",
			GroupResource, name, r.File, r.GroupResource())}
}

// checkPublished refuses a change of the published annotations the server
// did not make: while a file serves the kind, FileAnnotation names that
// file (or is absent from a definition never published) and a changed
// HashAnnotation is that of the file's definition; once the file is gone,
// both stay as they were.
func checkPublished(snap *registry.Snapshot, obj, old []byte) []engine.FieldError {
	got, was := annotatedFile(obj), annotatedFile(old)
	r, served := fileKind(snap, obj)
	want, wantHash := was, annotatedHash(old)
	if served && (got != "" || was != "") {
		want = r.File
	}
	if served && annotatedHash(obj) != wantHash {
		wantHash = derived(r).hash
	}
	var causes []engine.FieldError
	if got != want && (got != "" || was != "") {
		causes = append(causes, setByServer(FileAnnotation, got, want))
	}
	if got := annotatedHash(obj); got != wantHash {
		causes = append(causes, setByServer(HashAnnotation, got, wantHash))
	}
	return causes
}

func setByServer(key, got, want string) engine.FieldError {
	return engine.FieldError{Type: engine.CauseInvalid, Path: "metadata.annotations[" + key + "]",
		Message: fmt.Sprintf("Invalid value: %q: set by the server: it must be %q", got, want)}
}

// refuseRepublish refuses a change to the spec of a published definition
// through a process that has no file for its kind: another process's file
// serves it (or did), and only files change it.
func refuseRepublish(snap *registry.Snapshot, obj, old []byte) []engine.FieldError {
	file := annotatedFile(old)
	if file == "" {
		return nil
	}
	if _, served := fileKind(snap, obj); served {
		return nil // refuseDiffering holds it to the file
	}
	spec, was := gjson.GetBytes(obj, "spec").Raw, gjson.GetBytes(old, "spec").Raw
	if jsoneq.Equal([]byte(spec), []byte(was)) {
		return nil
	}
	return []engine.FieldError{{Type: engine.CauseInvalid, Path: "spec", Message: fmt.Sprintf(
		"Invalid value: %q: published from the definition file %s, which this server does not hold: it changes only with the file",
		nameOf(obj), file)}}
}
