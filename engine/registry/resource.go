package registry

import (
	"fmt"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/apply"
	"github.com/dynapi/dynapi/engine/convert"
	"github.com/dynapi/dynapi/engine/schema"
)

// Resource is one loaded definition: a kind of an API group and all its
// versions. It belongs to a Snapshot and must not be modified.
type Resource struct {
	Group      string
	Kind       string
	ListKind   string
	Plural     string // the resource name in URLs
	Singular   string
	ShortNames []string
	Categories []string
	Namespaced bool
	// Versions are in Kubernetes version priority order: GA before beta
	// before alpha, higher numbers first, then other names alphabetically.
	Versions       []*Version
	StorageVersion string
	File           string // the definition file it came from, as a path within the loaded fs.FS
	// Conversion holds the rules that convert between the versions,
	// checked against their schemas. It is nil when the kind has no rules
	// file: its versions differ by apiVersion only, and a nil Rules
	// converts accordingly.
	Conversion *convert.Rules
	// ConversionFile is the rules file, as a path within the conversions
	// fs.FS given to Load; "" when there is none.
	ConversionFile string
	// Webhook is the conversion webhook the definition names (a
	// CustomResourceDefinition's conversion strategy Webhook), nil when
	// none; it converts the versions unless Conversion does (see
	// ConvertsByWebhook).
	Webhook *ConversionWebhook
	// Unenforced says what the definition declares that dynapi accepts but
	// does not do (a conversion webhook that a rules file overrides), so
	// that it is logged and answered as a warning rather than ignored in
	// silence.
	Unenforced []string
	// Fields tracks managedFields and merges server-side apply patches of
	// the kind; its type information is built on the first write.
	Fields *apply.Kind

	rulesJSON []byte // the rules document, to tell a change of rules (see SchemaChanges)
}

// Version is one version of a Resource.
type Version struct {
	Name       string
	Served     bool
	Storage    bool
	Deprecated bool
	// DeprecationWarning is the definition's own text; "" means Kubernetes'
	// default text, which Resource.DeprecationWarning builds.
	DeprecationWarning string
	Schema             *schema.Schema // nil only for a version that is not served and has no schema
	PrinterColumns     []PrinterColumn
	Subresources       Subresources
	SelectableFields   []string // JSON paths like ".spec.color"
}

// PrinterColumn is a column of `kubectl get` output, as a CRD's additionalPrinterColumns.
type PrinterColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"` // integer, number, string, boolean or date
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int32  `json:"priority,omitempty"`
	JSONPath    string `json:"jsonPath"`
}

// Subresources says which subresources a version serves.
type Subresources struct {
	Status bool
	Scale  *Scale // nil when the scale subresource is off
}

// Scale maps the scale subresource onto fields of the object, as a CRD's
// subresources.scale does.
type Scale struct {
	SpecReplicasPath   string `json:"specReplicasPath"`
	StatusReplicasPath string `json:"statusReplicasPath"`
	LabelSelectorPath  string `json:"labelSelectorPath,omitempty"`
}

// GroupResource names the resource regardless of version.
func (r *Resource) GroupResource() engine.GroupResource {
	return engine.GroupResource{Group: r.Group, Resource: r.Plural}
}

// Version returns the named version, served or not.
func (r *Resource) Version(name string) (*Version, bool) {
	for _, v := range r.Versions {
		if v.Name == name {
			return v, true
		}
	}
	return nil, false
}

// DeprecationWarning returns the warning to send with every request to a
// deprecated version, and "" for a version that is not deprecated. Without a
// text of its own it is Kubernetes' default: "<apiVersion> <Kind> is
// deprecated", followed by "; use <apiVersion> <Kind>" naming the most
// preferred served version that is not deprecated and ranks above it.
func (r *Resource) DeprecationWarning(v *Version) string {
	if !v.Deprecated {
		return ""
	}
	if v.DeprecationWarning != "" {
		return v.DeprecationWarning
	}
	msg := fmt.Sprintf("%s %s is deprecated", r.apiVersion(v.Name), r.Kind)
	// Versions are sorted by priority, so the first match ranks highest.
	for _, other := range r.Versions {
		if other == v {
			break
		}
		if other.Served && !other.Deprecated {
			return msg + fmt.Sprintf("; use %s %s", r.apiVersion(other.Name), r.Kind)
		}
	}
	return msg
}

func (r *Resource) apiVersion(version string) string {
	return engine.GroupVersionKind{Group: r.Group, Version: version}.APIVersion()
}

// ConvertTo converts obj, an object of version from, into version to by
// r's rules, pruned to what to's schema holds: what a client of to sees,
// without what the remainder keeps beside a stored object. A kind without
// rules has one shape: only apiVersion changes, and nothing is pruned.
// Errors: those of the rules' Convert, and a version r does not have.
func (r *Resource) ConvertTo(obj []byte, from, to string) ([]byte, error) {
	out, err := r.Conversion.Convert(obj, from, to)
	if err != nil || r.Conversion == nil {
		return out, err
	}
	v, ok := r.Version(to)
	if !ok {
		return nil, fmt.Errorf("convert %s: no version %q", r.Kind, to)
	}
	if v.Schema == nil {
		return out, nil
	}
	out, _ = v.Schema.Prune(out)
	return out, nil
}
