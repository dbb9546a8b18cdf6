package httpapi

import (
	"cmp"
	"slices"

	"github.com/dynapi/dynapi/engine/registry"
)

// reviewVersion is the one version of the review groups.
const reviewVersion = "v1"

// reviewResources are the reviews of reviews.go as discovery lists them,
// as kube-apiserver does: create-only, with no storageVersionHash. They
// are answered by handlers and never stored, so no snapshot serves them;
// discovery adds them. The registry keeps their names from every
// definition, so none can take their place.
var reviewResources = registry.Reviews()

// createOnly are the verbs of a review.
var createOnly = []string{"create"}

// reviewDiscovery lists the reviews of group/version.
func reviewDiscovery(group, version string) []discoveredResource {
	if version != reviewVersion {
		return nil
	}
	var out []discoveredResource
	for _, res := range reviewResources {
		if res.Group == group {
			out = append(out, discoveredResource{res: res, version: version, verbs: createOnly})
		}
	}
	return out
}

// discoveryGroupsOf lists the groups discovery shows: the snapshot's, with
// the review groups' version added, core group first, then by name.
func discoveryGroupsOf(snap *registry.Snapshot) []registry.Group {
	groups := slices.Clone(snap.Groups())
	for _, res := range reviewResources {
		i := slices.IndexFunc(groups, func(g registry.Group) bool { return g.Name == res.Group })
		switch {
		case i < 0:
			groups = append(groups, registry.Group{Name: res.Group, Versions: []string{reviewVersion}, PreferredVersion: reviewVersion})
		case !slices.Contains(groups[i].Versions, reviewVersion):
			groups[i].Versions = append(slices.Clone(groups[i].Versions), reviewVersion)
		}
	}
	slices.SortFunc(groups, func(a, b registry.Group) int { return cmp.Compare(a.Name, b.Name) })
	return groups
}
