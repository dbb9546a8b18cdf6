package resource

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/schema"
)

// Field validation directives (the fieldValidation query parameter).
const (
	FieldValidationStrict = "Strict"
	FieldValidationWarn   = "Warn"
	FieldValidationIgnore = "Ignore"
)

// reportFields reports the fields a body's decoding found (what:
// "unknown" or "duplicate") as kube-apiserver does: a warning each (Warn,
// the default), none (Ignore), or, under Strict, one more reason for the
// 400 strictError answers.
func (w *Write) reportFields(what string, paths []string) {
	msgs := make([]string, len(paths))
	for i, p := range paths {
		msgs[i] = fmt.Sprintf("%s field %q", what, p)
	}
	w.report(msgs, msgs)
}

// reportYAML reports the duplicate keys of a YAML body: under Strict as
// the one error of kube's YAML decoder, otherwise a warning each.
func (w *Write) reportYAML(lines []string) {
	if len(lines) > 0 {
		w.report([]string{yamlErrors(lines)}, lines)
	}
}

func (w *Write) report(strict, warnings []string) {
	switch w.Options.FieldValidation {
	case FieldValidationIgnore:
	case FieldValidationStrict:
		w.decode.strict = append(w.decode.strict, strict...)
	default:
		w.Warnings = append(w.Warnings, warnings...)
	}
}

// strictError is the 400 of a Strict write whose body had problems, in
// kube-apiserver's words, or nil.
func (w *Write) strictError() error {
	if len(w.decode.strict) == 0 {
		return nil
	}
	kind := w.Target.Resource.Kind
	return engine.Errorf(engine.CodeBadRequest, "%s in version %q cannot be handled as a %s: strict decoding error: %s",
		kind, w.Target.Version.Name, kind, strings.Join(w.decode.strict, ", "))
}

// yamlErrors is the error text of sigs.k8s.io/yaml's strict decoder for
// these lines.
func yamlErrors(lines []string) string {
	return "yaml: unmarshal errors:\n  " + strings.Join(lines, "\n  ")
}

// unknownMeta are the paths of metadata's members that ObjectMeta does not
// have, which kube-apiserver drops and reports.
func unknownMeta(obj []byte) []string {
	var out []string
	lookup(obj, "metadata").ForEach(func(k, _ gjson.Result) bool {
		if !slices.Contains(schema.ObjectMetaFields, k.Str) {
			out = append(out, "metadata."+k.Str)
		}
		return true
	})
	return out
}
