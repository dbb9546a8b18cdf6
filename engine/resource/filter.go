package resource

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/selector"
)

// filter evaluates a list's or watch's selectors on objects in the target's
// version. The store evaluates labels and metadata fields itself (in SQL,
// with indexes); selectable fields of the version are evaluated here, after
// conversion, because their paths are the version's. Those whose path is
// the same in the stored bodies also go to the store (see bodyFields), to
// narrow the list with indexes; they are still evaluated here.
type filter struct {
	labels []engine.Requirement
	fields []engine.FieldRequirement
	// selectable reports whether any field requirement is on a selectable field.
	selectable bool
	// body and bodyVersion are the store's BodyFields and BodyFieldsVersion.
	body        []engine.FieldRequirement
	bodyVersion string
}

// metadataFields are the fields every kind can be selected by.
var metadataFields = map[string]bool{"metadata.name": true, "metadata.namespace": true}

// newFilter checks the field selector against the version's selectable
// fields. Errors: BadRequest for a field the version does not offer.
func newFilter(t Target, lo engine.ListOptions) (*filter, error) {
	f := &filter{labels: lo.Labels, fields: lo.Fields}
	for _, r := range lo.Fields {
		if metadataFields[r.Path] {
			continue
		}
		if !isSelectable(t, r.Path) {
			return nil, engine.Errorf(engine.CodeBadRequest, "field label not supported: %s", r.Path)
		}
		f.selectable = true
		f.addBody(t, r)
	}
	return f, nil
}

func isSelectable(t Target, path string) bool {
	return selectableIn(t.Version, path)
}

func selectableIn(v *registry.Version, path string) bool {
	for _, sf := range v.SelectableFields {
		if strings.TrimPrefix(sf, ".") == path {
			return true
		}
	}
	return false
}

// storeOptions is lo without the requirements the store cannot evaluate.
func (f *filter) storeOptions(lo engine.ListOptions) engine.ListOptions {
	if !f.selectable {
		return lo
	}
	lo.Fields = nil
	for _, r := range f.fields {
		if metadataFields[r.Path] {
			lo.Fields = append(lo.Fields, r)
		}
	}
	lo.BodyFields, lo.BodyFieldsVersion = f.body, f.bodyVersion
	return lo
}

// match reports whether obj satisfies every selector.
func (f *filter) match(obj []byte) bool {
	return selector.MatchLabels(f.labels, obj) && selector.MatchFields(f.fields, obj, fieldPath)
}

// matchSelectable reports whether obj satisfies the selectable-field
// requirements (the ones the store did not evaluate).
func (f *filter) matchSelectable(obj []byte) bool {
	return !f.selectable || selector.MatchFields(f.fields, obj, fieldPath)
}

// fieldPath turns a dotted field path into a gjson path.
func fieldPath(field string) string {
	parts := strings.Split(field, ".")
	for i, p := range parts {
		parts[i] = gjson.Escape(p)
	}
	return strings.Join(parts, ".")
}

// escapeKey escapes one key (such as an annotation with dots) for sjson.
func escapeKey(key string) string { return gjson.Escape(key) }
