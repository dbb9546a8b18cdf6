package crd

import (
	"cmp"
	"embed"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// Check returns the problems of a CustomResourceDefinition about to be
// written (obj: JSON, in v1, valid against the kind's schema), judged on its
// own by the registry that will serve it: metadata.name is <plural>.<group>,
// names are well formed, exactly one version is stored, schemas compile...
// Names that other definitions hold are no problem here: kube-apiserver
// accepts such a definition and reports the conflict in its status, and so
// does the Controller. What the definition declares that dynapi does not do
// yet (see registry.Resource.Unenforced) comes back as warnings, which
// kubectl prints. Strategy runs it.
func Check(obj []byte) ([]engine.FieldError, []string) {
	snap, problems := loadAlone(obj)
	prefix := definitionName(obj) + ": "
	var causes []engine.FieldError
	for _, p := range problems {
		causes = append(causes, cause(strings.TrimPrefix(p.Reason, prefix)))
	}
	var warnings []string
	for _, r := range snap.Resources() {
		for _, u := range r.Unenforced {
			warnings = append(warnings, r.GroupResource().String()+": "+u)
		}
	}
	return causes, warnings
}

// loadAlone loads the definition obj in a registry of its own, with no
// definition file and no built-in kind.
//
// Its schemas' jsonschema validators are not compiled (CompileValidators):
// the schema compiler refuses whatever the validator's compiler would
// (TestKeywordChecksAgreeWithMetaschema, FuzzCompiledMeansCompilable), and
// compiling them, mostly checking each against JSON Schema's metaschema,
// was a fifth of the CPU of a burst of CRDs created through the API. Each
// is compiled on its kind's first write, as when loaded from a file.
func loadAlone(obj []byte) (*registry.Snapshot, []registry.Problem) {
	// No definition files: the zero embed.FS is an empty fs.FS.
	return registry.LoadWith(embed.FS{}, nil, registry.LoadOptions{
		APIDefinitions: map[string][]byte{nameOf(obj): obj}, WithoutBuiltins: true})
}

// definitionName is how the registry names a definition at the start of
// each of its reasons: "CronTab.stable.example.com".
func definitionName(obj []byte) string {
	spec := gjson.GetBytes(obj, "spec")
	name := cmp.Or(spec.Get("names.kind").Str, spec.Get("names.plural").Str, "definition")
	if group := spec.Get("group").Str; group != "" {
		name += "." + group
	}
	return name
}

// fieldPaths maps the first word of a registry reason, which names a field
// of the native format, to the field of a CustomResourceDefinition.
var fieldPaths = map[string]string{
	"group": "spec.group", "scope": "spec.scope", "version": "spec.versions",
	"plural": "spec.names.plural", "singular": "spec.names.singular",
	"kind": "spec.names.kind", "listKind": "spec.names.listKind",
	"shortNames": "spec.names.shortNames", "categories": "spec.names.categories",
}

// cause turns a registry reason into a field error in kube-apiserver's
// words where it can: `plural "Foo": a lowercase...` becomes
// spec.names.plural: `Invalid value: "Foo": a lowercase...`. A reason that
// names no field is about the spec.
func cause(reason string) engine.FieldError {
	word, rest, _ := strings.Cut(reason, " ")
	word = strings.TrimSuffix(word, ":")
	path, ok := fieldPaths[word]
	if !ok && (strings.HasPrefix(word, "spec.") || strings.HasPrefix(word, "metadata.")) {
		path, ok = word, true
	}
	switch {
	case !ok:
		return engine.FieldError{Type: engine.CauseInvalid, Path: "spec", Message: reason}
	case rest == "is required":
		return engine.FieldError{Type: engine.CauseRequired, Path: path, Message: "Required value"}
	case strings.HasPrefix(rest, `"`):
		return engine.FieldError{Type: engine.CauseInvalid, Path: path, Message: "Invalid value: " + rest}
	}
	return engine.FieldError{Type: engine.CauseInvalid, Path: path, Message: rest}
}

// Strategy is the CustomResourceDefinition's strategy: Check on every
// write but those of /status, which the Controller makes, kube's
// approval rule for the Kubernetes community's groups, and the rule for
// kinds that definition files serve (see files.go).
type Strategy struct {
	resource.CustomResource
	// Snapshots gives the registry's current snapshot, whose definition
	// files a definition must match to define their kinds too.
	Snapshots interface{ Load() *registry.Snapshot }
	// Service counts the objects of a protected definition's kind.
	Service *resource.Service
	// DeletionProtection protects every definition, as if each carried
	// ProtectionAnnotation.
	DeletionProtection bool
}

// Validate runs Check and kube's checks of spec.conversion, and refuses a
// definition in a protected group
// (k8s.io, kubernetes.io) without the api-approved.kubernetes.io
// annotation, as kube-apiserver does for the objects written through the
// API; definition files are the operator's own and are not held to it.
// One for a kind a definition file serves must match the file (see
// files.go); one published for a file is read-only but for its metadata
// (see readonly.go).
func (s Strategy) Validate(w *resource.Write) ([]engine.FieldError, []string) {
	if w.Target.Subresource == "status" {
		return nil, nil
	}
	var snap *registry.Snapshot
	if s.Snapshots != nil {
		snap = s.Snapshots.Load()
	}
	causes, warnings := check(w.Context(), snap, w.Object)
	causes = append(causes, checkConversion(w.Object, w.Old)...)
	if snap != nil && len(causes) == 0 {
		causes = append(refuseDiffering(snap, w.Object), checkPublished(snap, w.Object, w.Old)...)
		causes = append(causes, refuseRepublish(snap, w.Object, w.Old)...)
	}
	return append(causes, checkApproval(w.Object, w.Old)...), warnings
}
