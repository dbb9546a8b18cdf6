package registry

import (
	"slices"

	// Kubernetes' own version priority order, as discovery uses it.
	"k8s.io/apimachinery/pkg/version"

	"github.com/dynapi/dynapi/engine/apply"
	"github.com/dynapi/dynapi/engine/schema"
)

// build checks a decoded definition and turns it into a Resource, compiling
// every schema it has (their validators too when opts.CompileValidators).
// It returns the reasons it refused it instead, if any.
func build(n *native, file string, opts LoadOptions) (*Resource, []string) {
	n.setDefaults()
	if reasons := n.check(); len(reasons) > 0 {
		return nil, reasons
	}
	r := &Resource{
		Group: n.Group, Kind: n.Kind, ListKind: n.ListKind,
		Plural: n.Plural, Singular: n.Singular,
		ShortNames: slices.Clip(n.ShortNames), Categories: slices.Clip(n.Categories),
		Namespaced: n.Scope == scopeNamespaced,
		File:       file,
	}
	var failed reasons
	for i := range n.Versions {
		v, err := n.Versions[i].build(opts.CompileValidators)
		if err != nil {
			failed.addf("version %q: schema: %v", n.Versions[i].Name, err)
			continue
		}
		r.Versions = append(r.Versions, v)
		if v.Storage {
			r.StorageVersion = v.Name
		}
	}
	if len(failed) > 0 {
		return nil, failed
	}
	sortVersions(r.Versions)
	r.Webhook = n.webhook
	return r, nil
}

// bindFields gives every resource of the load that has none its Fields,
// once it is known to be served: a candidate that loses its names, or
// whose previous self is adopted instead (see adoptPrevious), never needs
// them, and describing a kind for managedFields walks all its schemas,
// which every load would otherwise do for every definition it reuses.
func (l *loader) bindFields() {
	for _, r := range l.resources {
		if r.Fields == nil {
			r.Fields = apply.NewKind(fieldsSpec(r, l.opts.Webhooks))
		}
	}
}

// fieldsSpec describes r for managedFields. Conversion is read when a
// conversion is needed: the rules are bound to r before bindFields. A kind
// converted by its webhook is converted by webhooks. An object converted
// by rules for field tracking is pruned to its target version, as a client
// of that version sees it: kube's FieldManager types it against that
// version's schema, and a field the version cannot hold (kept by the
// remainder) would fail that and lose the write's managedFields entry.
func fieldsSpec(r *Resource, webhooks BatchConverter) apply.Spec {
	s := apply.Spec{Group: r.Group, Kind: r.Kind, Convert: func(obj []byte, from, to string) ([]byte, error) {
		if from != to && r.ConvertsByWebhook() {
			return convertByWebhook(webhooks, r, obj, to)
		}
		return r.ConvertTo(obj, from, to)
	}}
	for _, v := range r.Versions {
		av := apply.Version{Name: v.Name, Status: v.Subresources.Status}
		if v.Schema != nil {
			av.Schema = v.Schema.RawShared() // apply keeps it, read-only
		}
		s.Versions = append(s.Versions, av)
	}
	return s
}

// build compiles the version's schema; the other fields were checked.
func (nv *nativeVersion) build(compileValidator bool) (*Version, error) {
	status, _ := nv.Subresources.status()
	v := &Version{
		Name: nv.Name, Served: *nv.Served, Storage: nv.Storage, Deprecated: nv.Deprecated,
		PrinterColumns: slices.Clip(nv.PrinterColumns),
		Subresources:   Subresources{Status: status, Scale: nv.Subresources.Scale},
	}
	if nv.DeprecationWarning != nil {
		v.DeprecationWarning = *nv.DeprecationWarning
	}
	for _, f := range nv.SelectableFields {
		v.SelectableFields = append(v.SelectableFields, f.JSONPath)
	}
	if hasSchema(nv.Schema) {
		s, err := schema.Compile(nv.Schema)
		if err != nil {
			return nil, err
		}
		if compileValidator {
			if err := s.CheckValidator(); err != nil {
				return nil, err
			}
		}
		v.Schema = s
	}
	return v, nil
}

// sortVersions orders versions as Kubernetes discovery does: GA, then beta,
// then alpha, higher numbers first, then names that are none of these.
func sortVersions(vs []*Version) {
	slices.SortStableFunc(vs, func(a, b *Version) int {
		return version.CompareKubeAwareVersionStrings(b.Name, a.Name)
	})
}

// sortVersionNames is sortVersions for bare names.
func sortVersionNames(names []string) {
	slices.SortStableFunc(names, func(a, b string) int {
		return version.CompareKubeAwareVersionStrings(b, a)
	})
}
