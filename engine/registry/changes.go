package registry

import (
	"bytes"
	"slices"
	"strings"
)

// SchemaChanges lists the versions of next, a new definition of prev's
// resource, in which stored objects may now read or validate differently:
// those whose schema is new or differs. When the conversion rules differ,
// or a version is gone (objects stored in it are read through the rules
// from a version that no longer exists), every version with a schema is
// listed. None means the change cannot affect stored objects.
func SchemaChanges(prev, next *Resource) []string {
	all := !bytes.Equal(prev.rulesJSON, next.rulesJSON) || lostVersion(prev, next)
	var out []string
	for _, v := range next.Versions {
		if v.Schema == nil {
			continue
		}
		if p, ok := prev.Version(v.Name); all || !ok || p.Schema == nil || !v.Schema.Equal(p.Schema) {
			out = append(out, v.Name)
		}
	}
	return out
}

// lostVersion reports whether next lacks a version prev had.
func lostVersion(prev, next *Resource) bool {
	return slices.ContainsFunc(prev.Versions, func(v *Version) bool {
		_, ok := next.Version(v.Name)
		return !ok
	})
}

// checkChanges asks LoadOptions.CheckChange about every loaded definition
// that changes a previous one's schemas or rules, and refuses those it
// has reasons against.
func (l *loader) checkChanges() {
	if l.opts.CheckChange == nil {
		return
	}
	for _, r := range slices.Clone(l.resources) {
		p, ok := l.prev.byResource[r.GroupResource()]
		if !ok || len(SchemaChanges(p, r)) == 0 {
			continue // new, or kept (r is p), or a change stored objects cannot feel
		}
		if reasons := l.opts.CheckChange(p, r); len(reasons) > 0 {
			l.refuse(r, strings.Join(reasons, "; "))
		}
	}
}
