package schema

import (
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"
)

// Validating needs two compiled forms of the translated document: the
// quick check, for every write, and the jsonschema validator, for what
// the quick check cannot vouch for. Both are built on first use, once,
// as kube-apiserver builds a custom resource's validators on its first
// request: a server holding a thousand kinds writes few of them, and the
// validator was most of a schema's compile time and heap. Compile still
// refuses every schema they would refuse: the translator checks what the
// metaschema did (see metaschema.go), and what is left to the compiler
// was the translator's own output.

// lazyChecks holds a Schema's compiled forms once built.
type lazyChecks struct {
	quickOnce sync.Once
	quick     *quick

	validatorOnce sync.Once
	validator     *validator
}

// validator is the jsonschema validator of a schema and the translated
// document it was compiled from, which phrases its errors.
type validator struct {
	schema *jsonschema.Schema
	doc    gjson.Result
	err    error // the compiler refused the document: the schema's problems
}

// validatorCompiles counts validators compiled, for tests.
var validatorCompiles atomic.Int64

// ValidatorCompiles returns how many jsonschema validators this process
// has compiled: each schema's once, on its first use or when a default
// needs it, and one per CheckValidator.
func ValidatorCompiles() int64 { return validatorCompiles.Load() }

// quickCheck returns the schema's quick check, building it on first use.
func (s *Schema) quickCheck() *quick {
	s.lazy.quickOnce.Do(func() {
		out, _ := s.translated()
		s.lazy.quick = compileQuick(out)
	})
	return s.lazy.quick
}

// compiledValidator returns the schema's validator, compiling it on first
// use.
func (s *Schema) compiledValidator() *validator {
	s.lazy.validatorOnce.Do(func() {
		out, formats := s.translated()
		_, s.lazy.validator = compileValidator(marshal(out), formats)
	})
	return s.lazy.validator
}

// setValidator records a validator Compile needed already. It runs before
// the Schema is shared.
func (s *Schema) setValidator(v *validator) {
	s.lazy.validatorOnce.Do(func() { s.lazy.validator = v })
}

// CheckValidator compiles the schema's jsonschema validator as its first
// use would, and returns what the compiler refuses, phrased as Compile
// phrases problems. Compile's own checks refuse all of that already;
// `dynapi check` calls it anyway, to make sure of it. The validator is
// not kept: most schemas never need it.
func (s *Schema) CheckValidator() error {
	out, formats := s.translated()
	_, v := compileValidator(marshal(out), formats)
	return v.err
}

// compileValidator compiles a translated document; the compiler is nil
// when it refused it.
func compileValidator(doc []byte, formats map[string]func(any) bool) (*jsonschema.Compiler, *validator) {
	validatorCompiles.Add(1)
	c, sch, err := compileDoc(doc, formats)
	if err != nil {
		return nil, &validator{err: problemsError(compileProblems(err))}
	}
	return c, &validator{schema: sch, doc: gjson.ParseBytes(doc)}
}

// translated translates the schema again, as Compile did: the translated
// document is not kept, as most schemas never need it.
func (s *Schema) translated() (map[string]any, map[string]func(any) bool) {
	decoded, _ := decodeJSON(s.raw) // Compile decoded it
	t := newTranslator()
	out, _ := t.root(decoded.(map[string]any))
	return out, t.formats
}
