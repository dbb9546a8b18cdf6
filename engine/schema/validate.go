package schema

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/internal/json/jsonscan"
	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"
)

// Validate returns every violation of the schema, never stopping at the
// first, phrased as kube-apiserver phrases them for custom resources
// (Type FieldValueTypeInvalid, message `Invalid value: "string":
// spec.replicas in body must be of type integer: "string"`), sorted by path.
// apiVersion, kind and metadata are left to other code, except the
// metadata.name and metadata.generateName rules of the schema. obj must be
// valid JSON, already pruned and defaulted.
func (s *Schema) Validate(obj []byte) []engine.FieldError {
	root := gjson.Parse(jsonscan.View(obj)) // read in place: nothing writes obj while the errors quoting it live
	if s.quickCheck().valid(root) {
		return nil
	}
	return s.validateBounded(causes{obj: root})
}

// ValidateUpdate is Validate for an update of old, the stored object in the
// same version, to obj, with kube-apiserver's validation ratcheting: a
// problem whose value is unchanged from old is tolerated, so that an object
// stored before its schema grew stricter can still be updated as long as
// the update leaves its invalid fields alone. As in Kubernetes, the value
// compared is the failing one (for a missing required field, the object
// lacking it), and list items are not matched between old and new: a
// problem inside a list is tolerated only when the whole list is unchanged.
func (s *Schema) ValidateUpdate(obj, old []byte) []engine.FieldError {
	root := gjson.Parse(jsonscan.View(obj))
	if s.quickCheck().valid(root) {
		return nil
	}
	return s.validateBounded(causes{obj: root, old: gjson.Parse(jsonscan.View(old))})
}

// validateBounded validates c.obj thinned (see thinner): the causes of
// what was kept are the answer when they reach MaxCauses, as there are
// more. When they do not (what was cut may hold the only problems, as a
// value the quick check cannot vouch for need not be wrong), it validates
// again without cutting.
func (s *Schema) validateBounded(c causes) []engine.FieldError {
	v := s.compiledValidator()
	if v.err != nil {
		return []engine.FieldError{{Type: engine.CauseInvalid, Message: "the schema cannot be compiled: " + v.err.Error()}}
	}
	c.doc = v.doc
	q := s.quickCheck()
	t := newThinner(MaxCauses + 1)
	out := validate(v.schema, c, t.value(c.obj, q, nil), t)
	if !t.cut || len(out) > MaxCauses {
		return out
	}
	t = newThinner(-1)
	return validate(v.schema, c, t.value(c.obj, q, nil), t)
}

// validate validates v (c.obj as Go values, thinned by t when t is not
// nil) against sch, a schema of c.doc, and returns the problems c lets
// through; when t cut values out, it says that there may be more.
func validate(sch *jsonschema.Schema, c causes, v any, t *thinner) []engine.FieldError {
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []engine.FieldError{{Type: engine.CauseInvalid, Path: c.base, Message: err.Error()}}
	}
	if t != nil {
		t.restore(ve)
	}
	c.visit(ve)
	c.finishAllOf()
	slices.SortFunc(c.out, func(a, b engine.FieldError) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
	})
	if c.truncated || t != nil && t.cut && len(c.out) >= MaxCauses {
		c.out = append(c.out, engine.FieldError{Type: engine.CauseInvalid,
			Message: fmt.Sprintf("too many errors: only the first %d are reported", MaxCauses)})
	}
	return c.out
}

// decodeJSON decodes one JSON value, keeping numbers exact.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// goValue converts a JSON value to the Go values jsonschema validates.
// Why: jsonschema validates Go values, not bytes, so this is the one place
// an object becomes map[string]any. Built from gjson, strings and numbers
// share the parsed text instead of being copied one by one.
func goValue(v gjson.Result) any {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Number:
		return json.Number(v.Raw) // exact, as jsonschema compares numbers with big.Rat
	case gjson.True:
		return true
	case gjson.False:
		return false
	case gjson.Null:
		return nil
	}
	if v.IsArray() {
		list := []any{}
		v.ForEach(func(_, x gjson.Result) bool {
			list = append(list, goValue(x))
			return true
		})
		return list
	}
	m := make(map[string]any)
	v.ForEach(func(k, x gjson.Result) bool {
		m[k.Str] = goValue(x)
		return true
	})
	return m
}
