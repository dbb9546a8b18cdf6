// Package crd serves the CustomResourceDefinitions created through the API,
// as kube-apiserver's apiextensions controllers do.
//
// The kind itself is an ordinary definition file
// (engine/builtin/definitions/apiextensions.k8s.io/customresourcedefinition.yaml): its objects
// are stored and served by the common pipeline. Each dynapi process runs one
// Controller, which lists them, then watches them, and hands them to the
// process's registry reloader (Definitions) whenever one changes, so that a
// definition created through any process is served by all of them. Then it
// writes each one's status through the status subresource: the
// NamesAccepted and Established conditions, the accepted names and the
// stored versions.
//
//	POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions
//	  → Store → watch event (every process) → Controller
//	  → Definitions.SetAPIDefinitions (a new registry snapshot)
//	  → status from the snapshot and its problems → UpdateStatus
//
// Every process must come to the same conclusions from the same stored
// definitions, whatever order it saw them in. So a name belongs to the
// definition file that declares it, then to the definition created first
// (see precedence.go); and each process writes a status only when it
// differs from what it computes, keeping the times of unchanged
// conditions, so that processes agree after one write (see writeStatus for
// processes whose definition files differ).
//
// Deleting a definition marks it, as kube-apiserver does (the
// customresourcecleanup.apiextensions.k8s.io finalizer, Terminating); the
// Cleaner deletes its objects in batches, then lets it go, which stops
// serving its kind (see cleanup.go, and delete.go for the protection
// annotation); meanwhile creates of its kind are refused (terminating.go).
// Removing a definition file keeps its objects.
//
// A server's Controller also publishes a definition for each kind a
// definition file serves, read-only through the API, so that every served
// kind has one (see publish.go, readonly.go), created with its status and
// not loaded again to be checked (see ownwrite.go). Processes whose files differ
// (a rolling deploy) must not contend over them, so each process follows
// its own files only: it publishes a kind (create or overwrite, the last
// writer wins) when its own snapshot of that kind changes (start, reload),
// deletes one only when a reload removed its own file and the stored one
// is still its publication (file and hash annotations), never deletes
// their objects, and writes the status only of its own publications.
//
// Check is the rule a schema cannot express: a definition must be one the
// registry accepts on its own (metadata.name is <plural>.<group>, names are
// well formed, schemas compile...). Its Strategy, which New registers,
// runs it on every write, so that a bad definition is refused with a 422, as kube-apiserver
// refuses it, instead of being stored and never served.
package crd
