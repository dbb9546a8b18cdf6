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
// are answered by handlers and never stored, so the registry, which holds
// storable kinds, does not know them; discovery adds them.
var reviewResources = []*registry.Resource{
	{Group: "authentication.k8s.io", Kind: "SelfSubjectReview", Plural: "selfsubjectreviews", Singular: "selfsubjectreview"},
	{Group: "authorization.k8s.io", Kind: "LocalSubjectAccessReview", Plural: "localsubjectaccessreviews",
		Singular: "localsubjectaccessreview", Namespaced: true},
	{Group: "authorization.k8s.io", Kind: "SelfSubjectAccessReview", Plural: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview"},
	{Group: "authorization.k8s.io", Kind: "SelfSubjectRulesReview", Plural: "selfsubjectrulesreviews", Singular: "selfsubjectrulesreview"},
	{Group: "authorization.k8s.io", Kind: "SubjectAccessReview", Plural: "subjectaccessreviews", Singular: "subjectaccessreview"},
}

// createOnly are the verbs of a review.
var createOnly = []string{"create"}

// reviewDiscovery lists the reviews of group/version, unless the snapshot
// serves a resource of the same name there (a definition cannot shadow
// what it serves).
func reviewDiscovery(snap *registry.Snapshot, group, version string) []discoveredResource {
	if version != reviewVersion {
		return nil
	}
	var out []discoveredResource
	for _, res := range reviewResources {
		if res.Group != group {
			continue
		}
		if _, _, taken := snap.Lookup(group, version, res.Plural); !taken {
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
