package registry

import (
	"maps"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// APIFilePrefix starts the File of every Resource and Problem that comes
// from LoadOptions.APIDefinitions: "api/<name>". A definition file's path
// ends in .yaml, .yml or .json and a definition's name (<plural>.<group>)
// in a domain, so the two do not meet even when schemas has a folder api.
const APIFilePrefix = "api/"

// APIRulesPrefix starts the ConversionFile of a Resource, and the File of
// a Problem, whose rules come from LoadOptions.APIConversions:
// "api/conversionrules/<name>". No definition's name has a slash.
const APIRulesPrefix = APIFilePrefix + "conversionrules/"

// LoadOptions are LoadWith's options; the zero value is Load.
type LoadOptions struct {
	// Previous is the snapshot the load replaces (nil: none). A broken file
	// never takes down what worked: when a definition file (or API
	// definition) that Previous served from is refused, in whole or in
	// part, or a folder holding it cannot be read, the resources Previous
	// loaded from it keep serving, as they were, as long as their names
	// still fit (Snapshot.Stale tells them apart). So do those of a kind
	// whose new rules are refused, or whose change CheckChange refuses.
	// Name conflicts are settled in favour of the definitions Previous
	// served. Previous must come from a load with the same RuntimeConfig.
	Previous *Snapshot
	// APIDefinitions are definitions created through the API, by name: one
	// document each (JSON, or YAML), read like a file named
	// APIFilePrefix+name after every file. A definition file wins a name
	// conflict with one of them. The slices must not be modified once
	// given: a later load given the same slice takes it as the same text.
	APIDefinitions map[string][]byte
	// APIConversions are conversion rules created through the API, by
	// name: one rules document each (JSON), read like a rules file named
	// APIRulesPrefix+name after every rules file. A rules file for the same
	// kind wins: the document is then not applied, and a warning on its
	// File says why (see RulesOverridden). The slices must not be modified
	// once given.
	APIConversions map[string][]byte
	// RuntimeConfig switches groups and versions off: their versions are
	// loaded as not served.
	RuntimeConfig RuntimeConfig
	// CheckChange, when set, is asked about every definition that replaces
	// one of Previous's with other schemas or rules (see SchemaChanges),
	// once its rules are attached. The reasons it returns refuse the new
	// definition, and the previous one keeps serving.
	CheckChange func(prev, next *Resource) []string
	// CompileValidators compiles every schema's jsonschema validator during
	// the load, which otherwise waits for the schema's first use (see
	// schema.Schema.CheckValidator): what Compile accepts compiles, and
	// `dynapi check` makes sure of it.
	CompileValidators bool
	// Webhooks converts the objects of kinds converted by their conversion
	// webhook where a load's products need it (managedFields recorded in
	// another version); nil: those conversions fail.
	Webhooks BatchConverter
	// Progress, when set, is told how many of the definitions to compile
	// are compiled: with done 0 before the first, then after each (a load
	// of hundreds of published CRDs takes seconds). It is called from
	// several goroutines at once and must be quick; a load that reuses
	// what Previous built counts the changed definitions only.
	Progress func(done, total int)
	// CheckAdmission, when set, checks each admission document of a file
	// (see AdmissionDocument): the reasons it returns refuse it, and the
	// file, as a definition's problems do. kind is the document's, doc its
	// JSON.
	CheckAdmission func(kind string, doc []byte) []string
	// WithoutBuiltins leaves the built-in definitions (package builtin)
	// out: a load of exactly the files given, for checking a definition on
	// its own and for tests.
	WithoutBuiltins bool
}

// IsAPIFile reports whether a Resource's or Problem's File names a
// definition created through the API rather than a file.
func IsAPIFile(file string) bool { return strings.HasPrefix(file, APIFilePrefix) }

// apiSources lists the definitions created through the API, in name order.
func (l *loader) apiSources() []source {
	var out []source
	for _, name := range slices.Sorted(maps.Keys(l.opts.APIDefinitions)) {
		src := l.opts.APIDefinitions[name]
		out = append(out, source{file: APIFilePrefix + name, src: src, key: l.apiKeyOf(APIFilePrefix+name, src)})
	}
	return out
}

// apiKeyOf is apiKey, taken from the previous load when it built file from
// the very same bytes (not equal bytes: the same slice): hashing every
// definition on every load would cost as much as a change at 1,000 kinds.
func (l *loader) apiKeyOf(file string, src []byte) sourceKey {
	if b, ok := l.prev.built[file]; ok && sameBytes(b.src, src) {
		return b.key
	}
	return apiKey(src)
}

// sameBytes reports whether a and b are one slice.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// apiKey identifies what a load reads of a CustomResourceDefinition
// stored through the API: not its status, resourceVersion or
// managedFields, which every status write changes, so that such a write
// costs no compile. A document that is not JSON is hashed whole.
func apiKey(src []byte) sourceKey {
	if !gjson.ValidBytes(src) {
		return keyOf(src, false)
	}
	fields := gjson.GetManyBytes(src, "apiVersion", "kind", "metadata.name", "spec")
	var read []byte
	for _, f := range fields {
		read = append(read, f.Raw...)
		read = append(read, 0)
	}
	return keyOf(read, true)
}
