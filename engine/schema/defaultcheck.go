package schema

import (
	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"
)

// defaultChecker checks defaults against their own schemas while a schema
// is compiled. The quick check of a default's schema decides most of them
// (it answers yes only when the validator would); the validator is
// compiled for the others only, and then kept as the schema's, so that a
// schema whose defaults are plain compiles no validator at load.
type defaultChecker struct {
	out      map[string]any // the translated document
	formats  map[string]func(any) bool
	compiler *jsonschema.Compiler // nil until a default needs the validator
	// validator is the schema's validator, once a default needed it.
	validator *validator
}

// check reports whether the default raw of pd is valid, adding the
// problems of one that is not.
func (d *defaultChecker) check(t *translator, path string, pd pendingDefault, raw []byte) bool {
	v := gjson.ParseBytes(raw)
	if compileQuick(pd.schema).valid(v) {
		return true
	}
	if !d.compile(t) {
		return false
	}
	sch, err := d.compiler.Compile(docURL + "#" + pd.ptr)
	if err != nil {
		t.problemf(path, "%v", err)
		return false
	}
	causes := validate(sch, causes{doc: d.validator.doc, obj: v, base: "default"}, goValue(v), nil)
	for _, fe := range causes {
		if fe.Path == "default" {
			t.problemf(path, "%s", fe.Message)
		} else {
			t.problemf(path, "%s: %s", fe.Path, fe.Message)
		}
	}
	return len(causes) == 0
}

// compile compiles the whole document once; false when the compiler
// refuses it, its problems added.
func (d *defaultChecker) compile(t *translator) bool {
	if d.validator == nil {
		d.compiler, d.validator = compileValidator(marshal(d.out), d.formats)
		if d.validator.err != nil {
			t.problems = append(t.problems, d.validator.err.Error())
		}
	}
	return d.compiler != nil
}
