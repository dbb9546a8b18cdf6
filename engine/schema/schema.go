// Package schema compiles a version's OpenAPI v3 schema (as a
// CustomResourceDefinition writes it) and applies it to objects held as JSON
// bytes: structural pruning, defaulting and validation, each as
// kube-apiserver does for custom resources. It is the only user of the
// jsonschema library.
package schema

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/dynapi/dynapi/engine/schema/cel"
)

// Schema is one compiled schema. It is immutable and safe for concurrent use.
type Schema struct {
	raw   []byte
	root  *node
	rules []RuleSet
	cel   *cel.Validator // nil: nothing beyond the OpenAPI schema to enforce
	lazy  lazyChecks     // the quick check and the validator, built on first use
	stamp uint64         // see DefaultsStamp
}

// RuleSet is the x-kubernetes-validations list of one schema, kept raw
// until CEL rules are compiled.
type RuleSet struct {
	// SchemaPath names the schema holding the rules, as compile errors do:
	// "properties.spec.properties.replicas"; "" for the root.
	SchemaPath string
	// Rules is the x-kubernetes-validations value as written.
	Rules json.RawMessage
}

// Raw returns the openAPIV3Schema JSON the schema was compiled from.
func (s *Schema) Raw() []byte {
	return slices.Clone(s.raw)
}

// RawShared returns the JSON Raw returns without copying it, for a holder
// that keeps it as long as the schema and never modifies it: a copy per
// holder was kilobytes per version of every kind served.
func (s *Schema) RawShared() []byte {
	return slices.Clip(s.raw)
}

// ValidationRules returns every x-kubernetes-validations list of the schema,
// outer schemas first, as written. ValidateRules evaluates them.
func (s *Schema) ValidationRules() []RuleSet {
	out := slices.Clone(s.rules)
	for i := range out {
		out[i].Rules = slices.Clone(out[i].Rules)
	}
	return out
}

// Equal reports whether two schemas were compiled from the same text.
func (s *Schema) Equal(other *Schema) bool {
	return bytes.Equal(s.raw, other.raw)
}
