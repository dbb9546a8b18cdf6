package registry

import (
	"cmp"
	"slices"

	"github.com/dynapi/dynapi/engine"
)

// Snapshot is an immutable set of loaded definitions, safe for concurrent
// use. Slices and values it returns are shared: callers must not modify them.
type Snapshot struct {
	resources  []*Resource // by group, then plural
	byResource map[engine.GroupResource]*Resource
	byKind     map[groupKind]*Resource
	groups     []Group
	served     map[groupVersion][]*Resource
	stale      map[*Resource]bool
	built      map[string]*built // by source, for the next load (see reuse.go)
	admission  []AdmissionDocument
}

type groupKind struct{ group, kind string }

type groupVersion struct{ group, version string }

// Group is one API group as discovery shows it.
type Group struct {
	Name string // "" for the core group
	// Versions are the versions any resource of the group serves, in
	// Kubernetes version priority order.
	Versions []string
	// PreferredVersion is the first of Versions, as kube-apiserver chooses
	// it for CustomResourceDefinitions.
	PreferredVersion string
}

// HasVersion reports whether the group serves version.
func (g Group) HasVersion(version string) bool {
	return slices.Contains(g.Versions, version)
}

// Empty returns a snapshot with no definitions, to serve before the first load.
func Empty() *Snapshot { return newSnapshot(nil, nil) }

// newSnapshot indexes resources whose names were already checked to be
// unique; stale are those kept from a previous snapshot.
func newSnapshot(resources []*Resource, stale map[*Resource]bool) *Snapshot {
	s := &Snapshot{
		resources:  slices.Clip(slices.Clone(resources)),
		byResource: map[engine.GroupResource]*Resource{},
		byKind:     map[groupKind]*Resource{},
		served:     map[groupVersion][]*Resource{},
		stale:      stale,
	}
	slices.SortFunc(s.resources, func(a, b *Resource) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Plural, b.Plural))
	})
	versions := map[string][]string{} // group → served versions
	for _, r := range s.resources {
		s.byResource[r.GroupResource()] = r
		s.byKind[groupKind{r.Group, r.Kind}] = r
		for _, v := range r.Versions {
			if !v.Served {
				continue
			}
			gv := groupVersion{r.Group, v.Name}
			s.served[gv] = append(s.served[gv], r)
			if !slices.Contains(versions[r.Group], v.Name) {
				versions[r.Group] = append(versions[r.Group], v.Name)
			}
		}
	}
	for gv, rs := range s.served {
		s.served[gv] = slices.Clip(rs)
	}
	s.groups = groupsOf(versions)
	return s
}

// groupsOf lists the groups that serve something, in discovery order: the
// core group "" sorts first, the others by name.
func groupsOf(versions map[string][]string) []Group {
	var groups []Group
	for name, vs := range versions {
		sortVersionNames(vs)
		groups = append(groups, Group{Name: name, Versions: slices.Clip(vs), PreferredVersion: vs[0]})
	}
	slices.SortFunc(groups, func(a, b Group) int { return cmp.Compare(a.Name, b.Name) })
	return slices.Clip(groups)
}

// Lookup finds a resource by its plural and one of its served versions.
func (s *Snapshot) Lookup(group, version, resource string) (*Resource, *Version, bool) {
	r, ok := s.byResource[engine.GroupResource{Group: group, Resource: resource}]
	if !ok {
		return nil, nil, false
	}
	v, ok := r.Version(version)
	if !ok || !v.Served {
		return nil, nil, false
	}
	return r, v, true
}

// Resource finds a resource by group and plural, whatever its versions
// serve.
func (s *Snapshot) Resource(gr engine.GroupResource) (*Resource, bool) {
	r, ok := s.byResource[gr]
	return r, ok
}

// ResourceByKind finds a resource by its kind, whatever its versions.
func (s *Snapshot) ResourceByKind(group, kind string) (*Resource, bool) {
	r, ok := s.byKind[groupKind{group, kind}]
	return r, ok
}

// Groups lists the groups that serve at least one version, core group first.
func (s *Snapshot) Groups() []Group { return s.groups }

// Group returns one group as Groups lists it.
func (s *Snapshot) Group(name string) (Group, bool) {
	i := slices.IndexFunc(s.groups, func(g Group) bool { return g.Name == name })
	if i < 0 {
		return Group{}, false
	}
	return s.groups[i], true
}

// Stale reports whether r serves on from a previous snapshot because the
// file that defines it was refused (see LoadOptions.Previous).
func (s *Snapshot) Stale(r *Resource) bool { return s.stale[r] }

// Resources lists every resource, served or not, sorted by group then plural.
func (s *Snapshot) Resources() []*Resource { return s.resources }

// ServedResources lists the resources serving group/version, sorted by
// plural: the content of that version's APIResourceList.
func (s *Snapshot) ServedResources(group, version string) []*Resource {
	return s.served[groupVersion{group, version}]
}
