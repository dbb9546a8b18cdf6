package registry

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Kubernetes' limits, from its CRD validation.
const (
	maxDeprecationWarning = 256
	maxSelectableFields   = 8
)

var (
	columnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	columnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// check returns the problems of one version, each naming the field at fault.
func (v *nativeVersion) check() []string {
	var r reasons
	if v.Name == "" {
		r.addf("name is required")
	} else {
		checkName(&r, "name", v.Name, validation.IsDNS1035Label(v.Name))
	}
	if *v.Served && !hasSchema(v.Schema) {
		r.addf("schema is required for a served version")
	}
	v.checkDeprecationWarning(&r)
	for i, c := range v.PrinterColumns {
		checkColumn(&r, i, c)
	}
	if _, err := v.Subresources.status(); err != nil {
		r.addf("%v", err)
	}
	if s := v.Subresources.Scale; s != nil {
		checkPath(&r, "subresources.scale.specReplicasPath", s.SpecReplicasPath, true, ".spec.")
		checkPath(&r, "subresources.scale.statusReplicasPath", s.StatusReplicasPath, true, ".status.")
		checkPath(&r, "subresources.scale.labelSelectorPath", s.LabelSelectorPath, false, ".spec.", ".status.")
	}
	v.checkSelectableFields(&r)
	return r
}

// hasSchema tells an absent or null schema from a present one.
func hasSchema(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

func (v *nativeVersion) checkDeprecationWarning(r *reasons) {
	w := v.DeprecationWarning
	switch {
	case w == nil:
	case !v.Deprecated:
		r.addf("deprecationWarning: can only be set for deprecated versions")
	case *w == "":
		r.addf("deprecationWarning: must not be an empty string")
	case len(*w) > maxDeprecationWarning:
		r.addf("deprecationWarning: must be <= %d characters long", maxDeprecationWarning)
	case !isPrintable(*w):
		r.addf("deprecationWarning: must only contain printable UTF-8 characters")
	}
}

// isPrintable is Kubernetes' test for a warning: it is sent as an HTTP header.
func isPrintable(s string) bool {
	return utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool {
		return !unicode.IsPrint(r) || unicode.IsControl(r)
	}) < 0
}

func checkColumn(r *reasons, i int, c PrinterColumn) {
	prefix := "printerColumns[" + strconv.Itoa(i) + "]"
	if c.Name == "" {
		r.addf("%s: name is required", prefix)
	}
	if !slices.Contains(columnTypes, c.Type) {
		r.addf("%s: type %q: must be one of %s", prefix, c.Type, strings.Join(columnTypes, ", "))
	}
	if c.Format != "" && !slices.Contains(columnFormats, c.Format) {
		r.addf("%s: format %q: must be one of %s", prefix, c.Format, strings.Join(columnFormats, ", "))
	}
	checkPath(r, prefix+".jsonPath", c.JSONPath, true)
}

// checkPath requires a simple JSON path (".spec.replicas"), under one of
// the given prefixes when there are any.
func checkPath(r *reasons, field, path string, required bool, under ...string) {
	switch {
	case path == "":
		if required {
			r.addf("%s is required", field)
		}
	case path[0] != '.':
		r.addf("%s %q: must be a simple json path starting with .", field, path)
	case len(under) > 0 && !slices.ContainsFunc(under, func(p string) bool { return strings.HasPrefix(path, p) }):
		r.addf("%s %q: must be a json path under %s", field, path, strings.Join(under, " or "))
	}
}
